#include "cli/python_deps.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/python_topology.hpp"
#include "storm/launcher.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;
using storm::ShellQuote;

namespace {

// pip options a requirements file may hold; those taking a file are resolved against the file's
// folder, as pip does, since sparse hands pip a copy elsewhere.
const std::vector<std::string>& FileOptions() {
  static const std::vector<std::string> o = {"-r", "--requirement", "-c", "--constraint"};
  return o;
}
const std::vector<std::string>& OtherOptions() {
  static const std::vector<std::string> o = {"-e",
                                             "--editable",
                                             "-i",
                                             "--index-url",
                                             "--extra-index-url",
                                             "-f",
                                             "--find-links",
                                             "--no-index",
                                             "--pre",
                                             "--prefer-binary",
                                             "--trusted-host",
                                             "--only-binary",
                                             "--no-binary",
                                             "--require-hashes",
                                             "--use-feature"};
  return o;
}

bool Contains(const std::vector<std::string>& list, const std::string& s) {
  for (const auto& x : list)
    if (x == s) return true;
  return false;
}

std::string Trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// PEP 503's normal form, to recognise `streamparse`, `StreamParse`, `stream_parse`.
std::string NormalName(const std::string& name) {
  std::string out;
  for (char c : name) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.push_back(l == '_' || l == '.' ? '-' : l);
  }
  return out;
}

struct LineCheck {
  std::string line;   // what pip gets ("" to leave out)
  std::string error;  // why pip would not read it
  std::string note;   // why it is left out
};

// One logical line of a requirements declaration: a pip option, a path or URL, or a PEP 508
// requirement (NAME[extras] followed by a version, a marker or `@ URL`).
LineCheck CheckLine(const std::string& raw, const fs::path& base) {
  std::string text = raw;
  // A comment starts at `#` at the line's start or after whitespace (pip's rule).
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) {
      text.resize(i);
      break;
    }
  }
  text = Trim(text);
  if (text.empty()) return {};
  if (text[0] == '-') {
    std::string option = text.substr(0, text.find_first_of(" \t="));
    std::string value =
        option.size() < text.size() ? Trim(text.substr(option.size() + 1)) : std::string();
    if (Contains(FileOptions(), option)) {
      if (value.empty()) return {"", "`" + option + "` needs a file name", ""};
      fs::path target(value);
      if (target.is_relative()) target = base / target;
      return {option + " " + target.lexically_normal().string(), "", ""};
    }
    if (Contains(OtherOptions(), option)) return {text, "", ""};
    return {"",
            "`" + option +
                "` is not a pip option sparse passes on (requirements, "
                "constraints, editables, index and find-links options are)",
            ""};
  }
  static const std::regex url(R"(^[A-Za-z][A-Za-z0-9+.-]*://\S+$)");
  if (std::regex_match(text, url)) return {text, "", ""};
  static const std::regex path(R"(^(\.{1,2}/|/|~/)\S*$|^\S+\.(whl|tar\.gz|zip)$)");
  if (std::regex_match(text, path)) return {text, "", ""};
  static const std::regex requirement(
      R"(^([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])\s*(\[[A-Za-z0-9._,\s-]*\])?\s*(([<>=!~(@;].*)|(--hash=\S+\s*)+)?$)");
  std::smatch m;
  if (!std::regex_match(text, m, requirement)) {
    return {"",
            "`" + text +
                "` is not a requirement pip reads (NAME[extras] with a version such "
                "as `pkg>=1.2`, a path, a URL or a pip option)",
            ""};
  }
  if (NormalName(m[1].str()) == "streamparse") {
    return {"", "",
            "`" + text +
                "` is left out: sparse brings its own streamparse and pystorm for the "
                "components, and does what the real streamparse's tools did itself"};
  }
  return {text, "", ""};
}

[[noreturn]] void Fail(base::Errc errc, const std::string& message) {
  throw base::Error(errc, message);
}

std::string ReadTextOrEmpty(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// Stable across builds and machines (std::hash is neither promised).
std::string Fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// Runs `command` with sh in `cwd`; every line it prints goes to stderr (indented, so pip's
// progress shows on the console) and to `log`. Returns its exit status (-1: not started).
int RunShown(const std::string& command, const fs::path& cwd, const fs::path& log) {
  std::ofstream out(log, std::ios::app);
  out << "$ " << command << "\n";
  const std::string full = "cd " + ShellQuote(cwd.string()) + " && " + command + " </dev/null 2>&1";
  FILE* pipe = ::popen(full.c_str(), "r");
  if (!pipe) return -1;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe)) {
    std::cerr << "  " << buf;
    out << buf;
  }
  std::cerr.flush();
  const int status = ::pclose(pipe);
  if (status == -1) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The interpreter's identity (path and version), part of the cache key.
std::string PythonIdentity(const std::string& python) {
  const std::string cmd = ShellQuote(python) +
                          " -c 'import sys; print(sys.executable); print(sys.version)' 2>/dev/null";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return python;
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  if (::pclose(pipe) != 0 || out.empty()) {
    Fail(base::Errc::kStartFailed,
         "cannot run " + python +
             " to build the topology's virtualenv (is Python 3 installed? SPARSE_PYTHON chooses "
             "one)");
  }
  return out;
}

fs::path CacheDir(const Project& project) {
  return project.root / "_build" / "venv";
}

std::string RequirementsText(const Requirements& r) {
  std::string text;
  for (const auto& l : r.lines) text += l + "\n";
  return text;
}

// Removes what earlier requirements or interpreters left for `topology` in `dir` (folders and
// files named `<topology>-<16 hex digits>...`), except what belongs to `keep`.
void RemoveStale(const fs::path& dir, const std::string& topology, const fs::path& keep) {
  std::error_code ec;
  const std::string prefix = topology + "-";
  const std::string keep_name = keep.filename().string();
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || name.rfind(keep_name, 0) == 0) continue;
    const std::string hash = name.substr(prefix.size(), 16);
    if (hash.size() == 16 && hash.find_first_not_of("0123456789abcdef") == std::string::npos) {
      fs::remove_all(e.path(), ec);
    }
  }
}

constexpr const char* kStamp = ".sparse-complete";

// One build at a time in a project's cache: two commands started together (a run and a jar)
// would otherwise build into the same folder. Held for one build; never nested.
class CacheLock {
 public:
  explicit CacheLock(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    fd_ = ::open((dir / ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~CacheLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  CacheLock(const CacheLock&) = delete;
  CacheLock& operator=(const CacheLock&) = delete;

 private:
  int fd_ = -1;
};

void NotePrinted(const Requirements& r) {
  static bool printed = false;  // several loads of one topology in one command
  if (printed) return;
  printed = true;
  for (const auto& n : r.notes) std::cerr << "sparse: note: " << n << "\n";
}

}  // namespace

fs::path StreamparseRequirementsFile(const Project& project, const std::string& topology) {
  if (!project.streamparse) return {};
  std::string folder = "virtualenvs";
  if (project.config["virtualenv_specs"] && project.config["virtualenv_specs"].IsScalar()) {
    folder = project.config["virtualenv_specs"].Scalar();
  }
  return project.root / folder / (topology + ".txt");
}

std::optional<Requirements> FindRequirements(const Project& project, const std::string& topology) {
  Requirements r;
  std::vector<std::string> errors;
  auto add = [&](const std::string& raw, const std::string& where, const fs::path& base) {
    LineCheck c = CheckLine(raw, base);
    if (!c.error.empty()) errors.push_back(where + ": " + c.error);
    if (!c.note.empty()) r.notes.push_back(where + ": " + c.note);
    if (!c.line.empty()) r.lines.push_back(c.line);
  };
  if (project.streamparse) {
    r.file = StreamparseRequirementsFile(project, topology);
    std::error_code ec;
    if (!fs::is_regular_file(r.file, ec)) return std::nullopt;
    std::istringstream in(ReadTextOrEmpty(r.file));
    std::string line, logical;
    int number = 0, first = 0;
    while (std::getline(in, line)) {
      ++number;
      if (logical.empty()) first = number;
      if (!line.empty() && line.back() == '\\') {  // pip's line continuation
        logical += line.substr(0, line.size() - 1);
        continue;
      }
      logical += line;
      add(logical, r.file.string() + ":" + std::to_string(first), r.file.parent_path());
      logical.clear();
    }
    if (!logical.empty()) {
      add(logical, r.file.string() + ":" + std::to_string(first), r.file.parent_path());
    }
  } else {
    const YAML::Node list = project.config["python_requirements"];
    if (!list) return std::nullopt;
    r.file = project.config_file;
    auto where = [&](const YAML::Node& n) {
      return r.file.string() + (n.Mark().line >= 0 ? ":" + std::to_string(n.Mark().line + 1) : "");
    };
    if (!list.IsSequence()) {
      errors.push_back(where(list) +
                       ": `python_requirements` must be a list of pip requirements, e.g. "
                       "[\"requests>=2\", ./wheels/mylib-1.0-py3-none-any.whl]");
    } else {
      for (const auto& item : list) {
        if (!item.IsScalar()) {
          errors.push_back(where(item) + ": each of `python_requirements` must be one line");
        } else {
          add(item.Scalar(), where(item), project.root);
        }
      }
    }
  }
  if (!errors.empty()) {
    std::string message;
    for (const auto& e : errors) message += (message.empty() ? "" : "\n  ") + e;
    Fail(base::Errc::kInvalidTopology, message);
  }
  NotePrinted(r);
  if (r.lines.empty()) return std::nullopt;
  return r;
}

std::optional<TopologyRequirements> RequirementsOfTopologyFile(const fs::path& file) {
  auto project = FindProject(file.parent_path());
  if (!project) return std::nullopt;
  const std::string topology = file.stem().string();
  auto requirements = FindRequirements(*project, topology);
  if (!requirements) return std::nullopt;
  return TopologyRequirements{std::move(*project), topology, std::move(*requirements), {}};
}

fs::path EnsureVirtualenv(const Project& project, const std::string& topology,
                          const Requirements& requirements, bool rebuild) {
  const std::string python = HelperPython();
  const std::string text = RequirementsText(requirements);
  const fs::path cache = CacheDir(project);
  const fs::path venv = cache / (topology + "-" + Fnv1a(text + PythonIdentity(python)));
  const CacheLock lock(cache);
  std::error_code ec;
  if (!rebuild && fs::exists(venv / kStamp, ec)) return venv;

  fs::remove_all(venv, ec);
  fs::create_directories(venv, ec);
  if (ec) Fail(base::Errc::kStartFailed, "cannot create " + venv.string() + ": " + ec.message());
  const fs::path log = cache / (topology + "-pip.log");
  fs::remove(log, ec);
  std::cerr << "python: building the virtualenv of `" << topology << "` from "
            << requirements.file.string() << " (" << requirements.lines.size() << " requirement"
            << (requirements.lines.size() == 1 ? "" : "s") << ") in " << venv.string() << "\n";
  // Built in place (a virtualenv does not survive being moved); the stamp marks it complete.
  if (RunShown(ShellQuote(python) + " -m venv " + ShellQuote(venv.string()), project.root, log) !=
      0) {
    fs::remove_all(venv, ec);
    Fail(base::Errc::kStartFailed,
         "cannot create a virtualenv with `" + python + " -m venv` for the requirements in " +
             requirements.file.string() + " (on Debian: apt-get install python3-venv; output in " +
             log.string() + ")");
  }
  const fs::path list = venv / "sparse-requirements.txt";
  std::ofstream(list) << text;
  const int rc = RunShown(ShellQuote((venv / "bin" / "python").string()) +
                              " -m pip install --disable-pip-version-check --no-input -r " +
                              ShellQuote(list.string()),
                          project.root, log);
  if (rc != 0) {
    fs::remove_all(venv, ec);
    Fail(base::Errc::kStartFailed, "pip could not install the requirements in " +
                                       requirements.file.string() + " (exit code " +
                                       std::to_string(rc) + "; its output is above and in " +
                                       log.string() + ")");
  }
  std::ofstream(venv / kStamp) << text;
  RemoveStale(cache, topology, venv);
  std::cerr << "python: virtualenv ready\n";
  return venv;
}

fs::path VendorRequirements(const TopologyRequirements& r, const std::string& python_version) {
  const Project& project = r.project;
  const std::string& topology = r.topology;
  const Requirements& requirements = r.requirements;
  const fs::path& venv = r.venv;
  if (venv.empty()) Fail(base::Errc::kInternal, "no virtualenv to install the requirements with");
  const std::string text = RequirementsText(requirements);
  const std::string suffix = "-site" + (python_version.empty() ? "" : "-py" + python_version);
  const fs::path cache = CacheDir(project);
  // The local virtualenv's folder name already covers the requirements and the interpreter.
  const fs::path site = cache / (venv.filename().string() + suffix);
  const CacheLock lock(cache);
  std::error_code ec;
  if (fs::exists(site / kStamp, ec)) return site / "packages";
  fs::remove_all(site, ec);
  fs::create_directories(site, ec);
  const fs::path log = cache / (topology + "-pip.log");
  std::cerr << "python: installing the requirements in " << requirements.file.string()
            << " for the jar (workers' Python "
            << (python_version.empty() ? "as this machine's" : python_version) << ")\n";
  std::string command = ShellQuote((venv / "bin" / "python").string()) +
                        " -m pip install --disable-pip-version-check --no-input --no-compile "
                        "--target " +
                        ShellQuote((site / "packages").string());
  if (!python_version.empty()) {
    // pip installs for another Python only from wheels.
    command += " --python-version " + ShellQuote(python_version) + " --only-binary=:all:";
  }
  command += " -r " + ShellQuote((venv / "sparse-requirements.txt").string());
  const int rc = RunShown(command, project.root, log);
  if (rc != 0) {
    fs::remove_all(site, ec);
    Fail(base::Errc::kBuildFailed,
         "pip could not install the requirements in " + requirements.file.string() +
             " for the jar (exit code " + std::to_string(rc) + "; its output is above and in " +
             log.string() +
             (python_version.empty() ? ")" : "; for another Python version pip needs wheels)"));
  }
  std::ofstream(site / kStamp) << text;
  return site / "packages";
}

void ActivateVirtualenv(const fs::path& venv) {
  if (const char* active = std::getenv("VIRTUAL_ENV"); active && venv == active) return;
  const std::string bin = (venv / "bin").string();
  const char* path = std::getenv("PATH");
  ::setenv("PATH", (bin + ":" + (path ? path : "/usr/bin:/bin")).c_str(), 1);
  ::setenv("SPARSE_PYTHON", (venv / "bin" / "python").c_str(), 1);
  ::setenv("VIRTUAL_ENV", venv.c_str(), 1);
}

std::optional<TopologyRequirements> UseTopologyVirtualenv(const fs::path& file) {
  static std::map<fs::path, std::optional<TopologyRequirements>> done;
  const fs::path key = fs::absolute(file).lexically_normal();
  if (auto it = done.find(key); it != done.end()) return it->second;
  auto r = RequirementsOfTopologyFile(key);
  if (r) {
    r->venv = EnsureVirtualenv(r->project, r->topology, r->requirements);
    ActivateVirtualenv(r->venv);
  }
  done[key] = r;
  return r;
}

std::string WorkerPythonVersion(const std::string& flag) {
  std::string v = flag;
  if (v.empty()) {
    const char* env = std::getenv("SPARSE_WORKER_PYTHON_VERSION");
    v = env ? env : "";
  }
  if (!v.empty() && !std::regex_match(v, std::regex(R"(3\.[0-9]{1,2})"))) {
    Fail(base::Errc::kUsage, "the workers' Python version must read as 3.MINOR (e.g. 3.11), not `" +
                                 v + "` (--python-version or SPARSE_WORKER_PYTHON_VERSION)");
  }
  return v;
}

}  // namespace sparse::cli
