// A reliable spout written against Apache Storm's own storm.js (copied next to it at test time,
// as a Storm jar's resources/ would hold it). Same behaviour as sentence_spout.py: emits this
// task's share of the sentences in `peers.sentences` as [sid, sentence] with the sid as message
// id, emits failed ones again, appends acks to <peers.out>/acked-<component>-<task>.jsonl and
// skips what those files hold when it (re)starts.
'use strict';
var fs = require('fs');
var path = require('path');
var storm = require('./storm');

function SentenceSpout() {
  storm.Spout.call(this);
}
SentenceSpout.prototype = Object.create(storm.Spout.prototype);
SentenceSpout.prototype.constructor = SentenceSpout;

function readLines(file) {
  var text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return [];
  }
  var lines = text.split('\n');
  lines.pop();  // what follows the last newline is not a whole line
  return lines.filter(function(l) { return l.length > 0; }).map(JSON.parse);
}

SentenceSpout.prototype.initialize = function(conf, context, done) {
  var name = context['componentid'], task = context['taskid'];
  var out = conf['peers.out'] || 'out';
  var tasks = Object.keys(context['task->component'])
                  .filter(function(t) { return context['task->component'][t] === name; })
                  .map(Number).sort(function(a, b) { return a - b; });
  var all = JSON.parse(fs.readFileSync(conf['peers.sentences'], 'utf8'));
  var mine = all.filter(function(s, i) { return i % tasks.length === tasks.indexOf(task); });
  var self = this;
  this.text = {};
  mine.forEach(function(s) { self.text[s[0]] = s[1]; });
  this.acked = new Set();
  fs.readdirSync(out).forEach(function(f) {
    if (f.indexOf('acked-' + name + '-') === 0) {
      readLines(path.join(out, f)).forEach(function(sid) { self.acked.add(sid); });
    }
  });
  this.todo = mine.map(function(s) { return s[0]; })
                  .filter(function(sid) { return !self.acked.has(sid); });
  this.queued = new Set(this.todo);
  this.ackedLog = path.join(out, 'acked-' + name + '-' + task + '.jsonl');
  this.failedLog = path.join(out, 'failed-' + name + '-' + task + '.jsonl');
  this.logInfo(name + ': ' + this.todo.length + ' sentences to emit, ' + this.acked.size +
               ' acked before');
  done();
};

// storm.js's default activate/deactivate never call done(), so the spout would never answer
// `sync`: Storm sends both commands too, so every storm.js spout must define them.
SentenceSpout.prototype.activate = function(done) { done(); };
SentenceSpout.prototype.deactivate = function(done) { done(); };

SentenceSpout.prototype.nextTuple = function(done) {
  while (this.todo.length > 0) {
    var sid = this.todo.shift();
    this.queued.delete(sid);
    if (!this.acked.has(sid)) {
      this.emit({tuple: [sid, this.text[sid]], id: sid}, function(taskIds) {});
      break;
    }
  }
  done();
};

SentenceSpout.prototype.ack = function(sid, done) {
  this.acked.add(sid);
  fs.appendFileSync(this.ackedLog, JSON.stringify(sid) + '\n');
  done();
};

SentenceSpout.prototype.fail = function(sid, done) {
  fs.appendFileSync(this.failedLog, JSON.stringify(sid) + '\n');
  if (sid in this.text && !this.acked.has(sid) && !this.queued.has(sid)) {
    this.todo.push(sid);
    this.queued.add(sid);
  }
  done();
};

new SentenceSpout().run();
