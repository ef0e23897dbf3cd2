// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// An output file that appears under its name only once written in full:
// the data goes to a temporary beside it (same folder, so the rename is
// atomic), renamed over the name by commit(). Without a commit (an error,
// an exception) the temporary is removed, so a reader never finds a
// truncated result. Streaming outputs (requests.csv, the VCD) write to
// temp_path() themselves and commit at the end of the run.
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>

namespace vp {

struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  // A temporary named by the writer (one that appends its own suffix).
  AtomicFile(std::string path, std::string temp) : path_(std::move(path)), temp_(std::move(temp)) {}
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_; }
  // The temporary as a stream (opened on first use).
  std::ostream& out();
  // Renames the complete temporary over path(); throws OutputError naming
  // the file when it could not be written or renamed.
  void commit();

  // `path` holding what `content` writes, or untouched on failure.
  static void write(const std::string& path, const std::function<void(std::ostream&)>& content);

 private:
  std::string path_, temp_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace vp
