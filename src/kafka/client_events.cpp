#include "kafka/client_events.hpp"

namespace sparse::kafka {

ClientError DescribeClientError(rd_kafka_t* rk, int err, const char* reason,
                                const std::string& bootstrap) {
  const auto code = static_cast<rd_kafka_resp_err_t>(err);
  const std::string why = reason ? reason : rd_kafka_err2str(code);
  ClientError e;
  e.key = rd_kafka_err2name(code);
  switch (code) {
    case RD_KAFKA_RESP_ERR__FATAL: {
      char buf[512];
      const auto fatal = rd_kafka_fatal_error(rk, buf, sizeof buf);
      e.fatal = true;
      e.message = std::string("fatal Kafka client error ") + rd_kafka_err2name(fatal) + ": " + buf +
                  "; the client cannot continue and will be restarted";
      return e;
    }
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
      e.message =
          "no Kafka broker reachable (bootstrap servers " + bootstrap + "): " + why + "; retrying";
      return e;
    case RD_KAFKA_RESP_ERR__TRANSPORT:
      e.message = "connection to a Kafka broker failed: " + why + "; retrying";
      return e;
    case RD_KAFKA_RESP_ERR__RESOLVE:
      e.message = "cannot resolve a Kafka broker address (bootstrap servers " + bootstrap +
                  "): " + why + "; retrying";
      return e;
    case RD_KAFKA_RESP_ERR__AUTHENTICATION:
    case RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED:
      e.message = "Kafka authentication failed: " + why +
                  "; check security.protocol and the sasl.* / ssl.* properties; retrying";
      return e;
    case RD_KAFKA_RESP_ERR__SSL:
      e.message = "TLS error talking to Kafka: " + why +
                  "; check security.protocol and the ssl.* properties; retrying";
      return e;
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
      e.message = "not authorized by Kafka: " + why + "; retrying";
      return e;
    default:
      e.message = std::string("Kafka client error ") + rd_kafka_err2name(code) + ": " + why;
      return e;
  }
}

int RuntimeLogLevel(int syslog_level) {
  if (syslog_level <= 3) return 4;
  if (syslog_level == 4) return 3;
  if (syslog_level <= 6) return 2;
  return 1;
}

}  // namespace sparse::kafka
