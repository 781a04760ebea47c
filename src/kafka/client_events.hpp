// What sparse tells a user about librdkafka's client-level events: connection failures,
// authentication failures, unknown topics, fatal errors. One place, so the spout and the bolt
// word them the same way. Every message ends with what happens next (retrying, or not).
#pragma once

#include <librdkafka/rdkafka.h>

#include <string>

namespace sparse::kafka {

// For librdkafka's error callback: a sentence for the user, and a key that groups repeats of
// the same problem (for ReportThrottle).
struct ClientError {
  std::string key;
  std::string message;
  bool fatal = false;  // the client cannot continue (rd_kafka_fatal_error)
};
ClientError DescribeClientError(rd_kafka_t* rk, int err, const char* reason,
                                const std::string& bootstrap);

// librdkafka log levels are syslog levels: 0 emergency .. 7 debug. Maps to the runtime's
// levels (0 trace, 1 debug, 2 info, 3 warn, 4 error).
int RuntimeLogLevel(int syslog_level);

}  // namespace sparse::kafka
