#include "kafka/delivery_rules.hpp"

namespace sparse::kafka {

DeliveryRules RulesFor(Guarantee guarantee) {
  using Emit = DeliveryRules::Emit;
  switch (guarantee) {
    case Guarantee::kAtLeastOnce:
      return {Emit::kTracked, true};
    case Guarantee::kAtMostOnce:
      return {Emit::kCommitFirst, false};
    case Guarantee::kExactlyOnce:
      return {Emit::kInEpochs, false};
  }
  return {};
}

}  // namespace sparse::kafka
