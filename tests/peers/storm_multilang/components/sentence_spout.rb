# A reliable spout written against Apache Storm's own storm.rb (copied next to it at test time, as
# a Storm jar's resources/ would hold it). Same behaviour as sentence_spout.py: emits this task's
# share of the sentences in `peers.sentences` as [sid, sentence] with the sid as message id, emits
# failed ones again, appends acks to <peers.out>/acked-<component>-<task>.jsonl and skips what
# those files hold when it (re)starts.
require_relative 'storm'
require 'json'
require 'set'

class SentenceSpout < Storm::Spout
  def open(conf, context)
    name = context['componentid']
    task = context['taskid']
    out = conf['peers.out'] || 'out'
    tasks = context['task->component'].select { |_, c| c == name }.keys.map(&:to_i).sort
    all = JSON.parse(File.read(conf['peers.sentences'], encoding: 'UTF-8'))
    mine = all.each_with_index.select { |_, i| i % tasks.size == tasks.index(task) }.map(&:first)
    @text = mine.to_h
    @acked = Set.new
    Dir.glob(File.join(out, "acked-#{name}-*.jsonl")).each do |f|
      File.read(f, encoding: 'UTF-8').scan(/^.*\n/).each { |line| @acked << JSON.parse(line) }
    end
    @todo = mine.map(&:first).reject { |sid| @acked.include?(sid) }
    @queued = Set.new(@todo)
    @acked_log = File.join(out, "acked-#{name}-#{task}.jsonl")
    @failed_log = File.join(out, "failed-#{name}-#{task}.jsonl")
    logInfo("#{name}: #{@todo.size} sentences to emit, #{@acked.size} acked before")
  end

  def nextTuple
    until @todo.empty?
      sid = @todo.shift
      @queued.delete(sid)
      next if @acked.include?(sid)
      emit([sid, @text[sid]], id: sid)
      break
    end
  end

  def ack(sid)
    @acked << sid
    File.open(@acked_log, 'a') { |f| f.write(sid.to_json + "\n") }
  end

  def fail(sid)
    File.open(@failed_log, 'a') { |f| f.write(sid.to_json + "\n") }
    return unless @text.key?(sid) && !@acked.include?(sid) && !@queued.include?(sid)
    @todo << sid
    @queued << sid
  end
end

SentenceSpout.new.run
