# Subscribes to the spouts with the `all` grouping, on Apache Storm's own storm.rb (Storm::Bolt):
# appends [source component, sid, its own task id] per tuple to
# <peers.out>/audit-<component>-<task>.jsonl, then acks.
require_relative 'storm'
require 'json'

class Audit < Storm::Bolt
  def prepare(conf, context)
    out = conf['peers.out'] || 'out'
    @task = context['taskid']
    @file = File.open(File.join(out, "audit-#{context['componentid']}-#{@task}.jsonl"), 'a')
    @file.sync = true
  end

  def process(tup)
    @file.write([tup.component, tup.values[0], @task].to_json + "\n")
    ack(tup)
  end
end

Audit.new.run
