// The scratch folder of one `sparse run` (the handshake's pid files): TMPDIR/sparse-run-XXXXXX,
// holding an `owner` file with the run's ProcessIdentity. It is removed on every way out of the
// run; after a kill -9 or a crash it stays, and the next run removes every such folder whose
// owner is gone (only folders of this user, only ones that carry the sparse-run- prefix).
#pragma once

#include <filesystem>
#include <vector>

namespace sparse::cli {

class RunDir {
 public:
  // Creates the folder; throws std::runtime_error naming the path when it cannot.
  RunDir();
  ~RunDir();
  RunDir(const RunDir&) = delete;
  RunDir& operator=(const RunDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Removes the leftovers of runs that died without cleaning up, in `tmp` (default: the system's
// temporary directory, $TMPDIR or /tmp). Returns the folders it removed.
std::vector<std::filesystem::path> RemoveStaleRunDirs(std::filesystem::path tmp = {});

}  // namespace sparse::cli
