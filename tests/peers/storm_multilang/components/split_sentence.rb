# storm-starter's split-sentence bolt on Apache Storm's own storm.rb (Storm::Bolt: anchors and acks
# by hand). Same behaviour as split_sentence.py: [sid, sentence] -> [word, sid, index], and with
# `peers.direct.target` each word also goes direct (stream `bylen`) to the task chosen by its
# length.
require_relative 'storm'

class SplitSentence < Storm::Bolt
  def prepare(conf, context)
    target = conf['peers.direct.target']
    @targets = context['task->component'].select { |_, c| target && c == target }
                                         .keys.map(&:to_i).sort
  end

  def process(tup)
    sid, sentence = tup.values
    sentence.split(' ').each_with_index do |word, index|
      emit([word, sid, index], anchor: tup)
      next if @targets.empty?
      emit([word, sid, index], stream: 'bylen', anchor: tup,
                               direct_task: @targets[word.length % @targets.size])
    end
    ack(tup)
  end
end

SplitSentence.new.run
