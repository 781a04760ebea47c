// storm-starter's split-sentence bolt on Apache Storm's own storm.js (BasicBolt: process calls
// done() to ack). Same behaviour as split_sentence.py: [sid, sentence] -> [word, sid, index], and
// with `peers.direct.target` each word also goes direct (stream `bylen`) to the task chosen by its
// length.
'use strict';
var storm = require('./storm');

function SplitSentence() {
  storm.BasicBolt.call(this);
}
SplitSentence.prototype = Object.create(storm.BasicBolt.prototype);
SplitSentence.prototype.constructor = SplitSentence;

SplitSentence.prototype.initialize = function(conf, context, done) {
  var target = conf['peers.direct.target'];
  var components = context['task->component'];
  this.targets = Object.keys(components)
                     .filter(function(t) { return target && components[t] === target; })
                     .map(Number).sort(function(a, b) { return a - b; });
  done();
};

SplitSentence.prototype.process = function(tup, done) {
  var self = this;
  var sid = tup.values[0];
  tup.values[1].split(' ').forEach(function(word, index) {
    self.emit({tuple: [word, sid, index], anchorTupleId: tup.id}, function(taskIds) {});
    if (self.targets.length > 0) {
      // Array.from counts code points, as Python's len and Ruby's length do.
      var task = self.targets[Array.from(word).length % self.targets.length];
      self.emitDirect({tuple: [word, sid, index], stream: 'bylen', task: task,
                       anchorTupleId: tup.id});
    }
  });
  done();
};

new SplitSentence().run();
