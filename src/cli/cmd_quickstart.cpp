// `sparse quickstart NAME`: writes a new project from the installed templates.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/paths.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

struct QuickstartArgs {
  std::string name;
  std::string lang = "python";
  std::string dir;
};

std::string Substitute(std::string text, const std::string& name) {
  const std::string key = "{{name}}";
  for (auto pos = text.find(key); pos != std::string::npos;
       pos = text.find(key, pos + name.size())) {
    text.replace(pos, key.size(), name);
  }
  return text;
}

int Quickstart(const QuickstartArgs& args) {
  static const std::regex kSafe("^[A-Za-z][A-Za-z0-9_-]{0,63}$");
  if (!std::regex_match(args.name, kSafe)) {
    std::cerr << "sparse: error: `" << args.name
              << "` is not a safe project name: use a letter, then letters, digits, '-' or '_' "
                 "(at most 64 characters)\n";
    return ExitCode(base::Errc::kUsage);
  }
  const fs::path templ = TemplatesDir() / "quickstart" / args.lang;
  std::error_code ec;
  if (!fs::is_directory(templ, ec)) {
    std::string langs;
    for (const auto& e : fs::directory_iterator(TemplatesDir() / "quickstart", ec)) {
      langs += (langs.empty() ? "" : ", ") + e.path().filename().string();
    }
    std::cerr << "sparse: error: no quickstart template for language `" << args.lang
              << "` (available: " << langs << ")\n";
    return ExitCode(base::Errc::kUsage);
  }
  const fs::path dest = fs::path(args.dir.empty() ? "." : args.dir) / args.name;
  if (fs::exists(dest, ec)) {
    std::cerr << "sparse: error: " << dest.string() << " already exists; not overwriting it\n";
    return ExitCode(base::Errc::kUsage);
  }
  std::vector<fs::path> written;
  for (auto it = fs::recursive_directory_iterator(templ); it != fs::recursive_directory_iterator();
       ++it) {
    const fs::path rel = fs::relative(it->path(), templ);
    if (rel.filename() == "__pycache__") {
      it.disable_recursion_pending();
      continue;
    }
    fs::path out = dest / rel;
    // Dotfiles are stored without their dot so packaging tools do not skip them.
    if (rel.filename() == "gitignore") out = out.parent_path() / ".gitignore";
    if (it->is_directory()) {
      fs::create_directories(out);
      continue;
    }
    fs::create_directories(out.parent_path());
    std::ifstream in(it->path(), std::ios::binary);
    std::stringstream buf;
    buf << in.rdbuf();
    std::ofstream(out, std::ios::binary) << Substitute(buf.str(), args.name);
    fs::permissions(out, fs::status(it->path()).permissions(), ec);
    written.push_back(fs::relative(out, dest));
  }
  std::sort(written.begin(), written.end());
  std::cerr << "created project " << args.name << " in " << dest.string() << ":\n";
  for (const auto& w : written) std::cout << "  " << w.string() << "\n";
  std::cerr << "next:\n  cd " << dest.string() << " && sparse run\n";
  if (std::filesystem::exists(dest / "CMakeLists.txt")) {
    std::cerr << "(`sparse run` builds the C++ components first; it needs cmake and a C++17 "
                 "compiler)\n";
  }
  return kExitOk;
}

// Every installed template with what it makes: the first paragraph of its README (the template
// describes itself; nothing to keep in step here), without the parenthesised details.
std::string TemplateList() {
  std::vector<std::pair<std::string, std::string>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(TemplatesDir() / "quickstart", ec)) {
    std::ifstream readme(e.path() / "README.md");
    std::string line, text;
    while (std::getline(readme, line)) {
      if (line.starts_with("#")) continue;
      if (line.empty()) {
        if (text.empty()) continue;
        break;
      }
      text += (text.empty() ? "" : " ") + line;
    }
    if (const auto paren = text.find(" ("); paren != std::string::npos) {
      const auto close = text.find(')', paren);
      if (close != std::string::npos) text.erase(paren, close - paren + 1);
    }
    found.emplace_back(e.path().filename().string(), text);
  }
  std::sort(found.begin(), found.end());
  std::string out = "Templates (--lang):\n";
  for (const auto& [name, text] : found)
    out += "  " + name + std::string(10 - std::min<std::size_t>(9, name.size()), ' ') + text + "\n";
  if (found.empty())
    out += "  (none installed in " + (TemplatesDir() / "quickstart").string() + ")\n";
  return out;
}

}  // namespace

void RegisterQuickstart(CLI::App& app, Action& action) {
  auto args = std::make_shared<QuickstartArgs>();
  CLI::App* cmd = app.add_subcommand("quickstart", "Create a new project from a template");
  cmd->footer([] {
    return TemplateList() +
           "\nExample:\n  sparse quickstart wordcount && cd wordcount && sparse run\n"
           "  sparse quickstart clicks --lang kafka";
  });
  cmd->add_option("name", args->name, "Project name (also its folder name)")->required();
  cmd->add_option("--lang", args->lang, "The template: its components' language (default python)");
  cmd->add_option("--dir", args->dir, "Create the project inside this folder (default: .)");
  cmd->callback([args, &action] { action = [args] { return Quickstart(*args); }; });
}

}  // namespace sparse::cli
