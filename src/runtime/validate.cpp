#include "runtime/validate.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "runtime/builtin.hpp"
#include "runtime/builtin_registry.hpp"
#include "runtime/config.hpp"
#include "runtime/serializer_choice.hpp"

namespace sparse::runtime {

namespace {

bool Reserved(std::string_view id) {
  return id.size() >= 2 && id.substr(0, 2) == "__";
}

// A component id names its log file (logs/<id>.log), appears in URLs of the web view and in
// Storm's UI: `../../x` or `/tmp/x` would write outside logs/. What Storm's ids are in practice
// (names, dotted names, dashes) all pass.
constexpr std::size_t kMaxComponentIdBytes = 200;

std::optional<std::string> ComponentIdProblem(std::string_view id) {
  if (id == "." || id == "..") return "is not a name";
  if (id.size() > kMaxComponentIdBytes) {
    return "is longer than " + std::to_string(kMaxComponentIdBytes) + " bytes";
  }
  for (const char ch : id) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '/' || ch == '\\') return "must not contain / or \\";
    if (c < 0x20 || c == 0x7f) return "must not contain control characters";
  }
  return std::nullopt;
}

// The config problems of the topology, its components and `extra`: errors or warnings. Each is
// reported where its key is written; a key set in several places is reported in each.
std::vector<Diagnostic> ConfigDiagnostics(const Topology& t, const std::vector<ConfigSource>& extra,
                                          bool errors) {
  std::vector<Diagnostic> out;
  const SourceLocation file_loc{t.file.string(), 0};
  auto where_in = [](const std::map<std::string, SourceLocation>& lines, const std::string& key,
                     const SourceLocation& fallback) {
    auto it = lines.find(key);
    return it != lines.end() ? it->second : fallback;
  };
  auto check = [&](const nlohmann::json& conf, const std::map<std::string, SourceLocation>& lines,
                   const SourceLocation& fallback, const std::string& context) {
    for (auto& issue : CheckConfig(conf)) {
      if (issue.error != errors) continue;
      out.push_back({where_in(lines, issue.key, fallback), context + issue.message});
    }
  };
  check(t.config, t.config_where, file_loc, "");
  for (const auto& c : t.components) {
    check(c.config, c.config_where, c.where, "component `" + c.id + "`: ");
  }
  for (const auto& source : extra) check(source.config, {}, source.where, "");
  if (!errors) return out;
  // Between keys, on what each component will run with.
  for (const auto& c : t.components) {
    nlohmann::json merged = t.config;
    MergeConfig(merged, c.config);
    for (const auto& source : extra) MergeConfig(merged, source.config);
    for (auto& issue : CheckMergedConfig(merged)) {
      SourceLocation where = where_in(c.config_where, issue.key, SourceLocation{});
      if (where.file.empty()) where = where_in(t.config_where, issue.key, file_loc);
      const std::string msg =
          (t.components.size() > 1 && c.config.contains(issue.key) ? "component `" + c.id + "`: "
                                                                   : "") +
          issue.message;
      const bool seen = std::any_of(out.begin(), out.end(), [&](const Diagnostic& d) {
        return d.message == msg && d.where.ToString() == where.ToString();
      });
      if (!seen) out.push_back({where, msg});
    }
  }
  return out;
}

}  // namespace

// The topology-wide rules of the built-ins it uses (BuiltinInfo::check_topology).
static void BuiltinTopologyChecks(const Topology& t, const BuiltinRegistry& builtins,
                                  std::vector<Diagnostic>& errors,
                                  std::vector<Diagnostic>& warnings) {
  std::set<std::string> seen;
  for (const auto& c : t.components) {
    if (c.builtin.empty() || !seen.insert(c.builtin).second) continue;
    const BuiltinInfo* info = builtins.Find(c.builtin);
    if (info && info->check_topology) info->check_topology(t, errors, warnings);
  }
}

std::vector<Diagnostic> ConfigWarnings(const Topology& topology, const BuiltinRegistry& builtins,
                                       const std::vector<ConfigSource>& extra) {
  auto out = ConfigDiagnostics(topology, extra, false);
  std::vector<Diagnostic> ignored;
  BuiltinTopologyChecks(topology, builtins, ignored, out);
  return out;
}

std::vector<Diagnostic> ValidateTopology(const Topology& t, const BuiltinRegistry& builtins,
                                         const std::vector<ConfigSource>& extra) {
  std::vector<Diagnostic> out = ConfigDiagnostics(t, extra, true);
  auto error = [&](const SourceLocation& where, std::string msg) {
    out.push_back({where, std::move(msg)});
  };
  const SourceLocation file_loc{t.file.string(), 0};

  if (t.name.empty()) {
    error(file_loc, "the topology has no `name`");
  } else if (t.name.find_first_of("/.:\\") != std::string::npos) {
    error(file_loc, "topology name `" + t.name + "` must not contain any of / . : \\");
  }
  if (t.components.empty()) error(file_loc, "the topology has no spouts or bolts");
  bool has_spout = false;

  std::map<std::string, const ComponentDef*> by_id;
  for (const auto& c : t.components) {
    if (c.id.empty()) continue;  // reported by the loader
    if (auto [it, inserted] = by_id.emplace(c.id, &c); !inserted) {
      error(c.where, "duplicate component id `" + c.id + "` (first declared at " +
                         it->second->where.ToString() + ")");
    }
    if (Reserved(c.id)) error(c.where, "component id `" + c.id + "` must not start with `__`");
    if (auto problem = ComponentIdProblem(c.id)) {
      std::string shown = c.id.substr(0, 60);
      for (char& ch : shown) {
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = '?';
      }
      error(c.where, "component id `" + shown + (c.id.size() > 60 ? "...`" : "`") + " " + *problem);
    }
    if (c.is_spout()) has_spout = true;
    if (c.command.empty() && c.builtin.empty()) {
      error(c.where, "component `" + c.id + "` has no `command`");
    }
    {
      // Overrides (-o) come later; the file's own settings are checked here, with its lines.
      nlohmann::json conf = t.config;
      MergeConfig(conf, c.config);
      if (auto choice = ChooseSerializer(c, conf); choice.error) {
        error(c.where, "component `" + c.id + "`: " + *choice.error);
      }
      if (!c.serializer.empty() && !c.builtin.empty()) {
        error(c.where, "`serializer` is for shell components; `" + c.id + "` is built in");
      }
    }
    if (c.is_spout() && !c.inputs.empty()) {
      error(c.inputs.front().where, "spout `" + c.id + "` cannot have inputs");
    }
    std::map<std::string, const StreamDef*> streams;
    for (const auto& s : c.streams) {
      if (!streams.emplace(s.id, &s).second) {
        error(s.where, "stream `" + s.id + "` declared twice in `" + c.id + "`");
      }
      if (Reserved(s.id)) {
        error(s.where, "stream id `" + s.id + "` of `" + c.id + "` must not start with `__`");
      }
      std::vector<std::string> seen;
      for (const auto& f : s.fields) {
        if (std::find(seen.begin(), seen.end(), f) != seen.end()) {
          error(s.where,
                "field `" + f + "` appears twice in stream `" + s.id + "` of `" + c.id + "`");
        }
        seen.push_back(f);
      }
    }
  }
  if (!t.components.empty() && !has_spout) error(file_loc, "the topology has no spout");

  for (const auto& c : t.components) {
    for (const auto& in : c.inputs) {
      auto it = by_id.find(in.component);
      if (it == by_id.end()) {
        error(in.where, "`" + c.id + "` reads from unknown component `" + in.component + "`");
        continue;
      }
      const ComponentDef& src = *it->second;
      const StreamDef* stream = src.FindStream(in.stream);
      if (!stream) {
        std::string known;
        for (const auto& s : src.streams) known += (known.empty() ? "" : ", ") + s.id;
        error(in.where, "`" + c.id + "` reads stream `" + in.stream + "` that `" + src.id +
                            "` does not declare" +
                            (known.empty() ? "" : " (it declares: " + known + ")"));
        continue;
      }
      const auto type = in.grouping.type;
      if (type == GroupingType::kFields || type == GroupingType::kPartialKey) {
        if (in.grouping.fields.empty()) {
          error(in.where,
                std::string(GroupingName(type)) + " grouping from `" + src.id + "` needs `fields`");
        }
        for (const auto& f : in.grouping.fields) {
          if (std::find(stream->fields.begin(), stream->fields.end(), f) == stream->fields.end()) {
            std::string declared;
            for (const auto& d : stream->fields) declared += (declared.empty() ? "" : ", ") + d;
            error(in.where, "fields grouping on `" + f + "`, which stream `" + in.stream +
                                "` of `" + src.id + "` does not declare (declared: " +
                                (declared.empty() ? "none" : declared) + ")");
          }
        }
      } else if (!in.grouping.fields.empty() && type != GroupingType::kGlobal) {
        error(in.where, "`fields` only applies to fields and partial_key groupings");
      }
      if (type == GroupingType::kDirect && !stream->direct) {
        error(in.where, "direct grouping on stream `" + in.stream + "` of `" + src.id +
                            "`, which is not declared direct");
      }
      if (type != GroupingType::kDirect && stream->direct) {
        error(in.where, "stream `" + in.stream + "` of `" + src.id +
                            "` is direct: subscribe to it with grouping `direct`");
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.where.line < b.where.line;
  });
  std::vector<Diagnostic> warnings;
  BuiltinTopologyChecks(t, builtins, out, warnings);
  return out;
}

void ValidateOrThrow(const Topology& topology, const BuiltinRegistry& builtins,
                     const std::vector<ConfigSource>& extra) {
  auto d = ValidateTopology(topology, builtins, extra);
  if (!d.empty()) throw TopologyError(std::move(d));
}

}  // namespace sparse::runtime
