"""A BatchingBolt grouping by the first value, three tuples per batch."""

from sparse_multilang import BatchingBolt


class GroupBolt(BatchingBolt):
    batch_size = 3

    def group_key(self, tup):
        if tup.values[0] == "unhashable":
            return []
        return tup.values[0]

    def process_batch(self, key, tuples):
        if key == "bad":
            raise ValueError("bad batch")
        self.emit([key, [t.values[1] for t in tuples]], need_task_ids=False)

    def process_tick(self, freq):
        self.log("tick %s" % freq)


if __name__ == "__main__":
    GroupBolt().run()
