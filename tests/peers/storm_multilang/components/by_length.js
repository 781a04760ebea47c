// The target of the split bolts' direct stream, on Apache Storm's own storm.js (BasicBolt).
// Appends [word, sid, index, its own task id] to <peers.out>/bylen-<component>-<task>.jsonl, and
// at start writes the task -> component map it was given to
// <peers.out>/context-<component>-<task>.json (so the test knows every task the splitters could
// choose from).
'use strict';
var fs = require('fs');
var path = require('path');
var storm = require('./storm');

function ByLength() {
  storm.BasicBolt.call(this);
}
ByLength.prototype = Object.create(storm.BasicBolt.prototype);
ByLength.prototype.constructor = ByLength;

ByLength.prototype.initialize = function(conf, context, done) {
  var out = conf['peers.out'] || 'out';
  var name = context['componentid'];
  this.task = context['taskid'];
  this.file = path.join(out, 'bylen-' + name + '-' + this.task + '.jsonl');
  fs.writeFileSync(path.join(out, 'context-' + name + '-' + this.task + '.json'),
                   JSON.stringify(context['task->component']) + '\n');
  done();
};

ByLength.prototype.process = function(tup, done) {
  fs.appendFileSync(this.file, JSON.stringify(tup.values.concat([this.task])) + '\n');
  done();
};

new ByLength().run();
