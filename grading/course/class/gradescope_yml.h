// The index of Gradescope's "Export Submissions" zip, submission_metadata.yml: an entry per
// submission folder, with the students who handed it in and when, which Gradescope writes with
// Ruby's YAML writer (Psych) in this shape:
//
//   ---
//   submission_132970515:
//     :submitters:
//     - :name: Ada Lovelace
//       :sid: '222334'
//       :email: ada@example.edu
//     :created_at: 2022-09-10 23:47:27.018556000 Z
//     :score: 32.0
//     :results: ...                 the autograder's results.json, nested
//     :history: ...                 the earlier submissions, each with its own :created_at:
//
// Only the folder names, the submitters and the top :created_at: are read; a group submission
// lists several submitters.
#pragma once

#include <string>
#include <vector>

namespace grade {

struct GradescopeSubmitter {
  std::string name, sid, email;  // "" for a value the file leaves empty (null)
};

struct GradescopeSubmission {
  std::string folder;  // "submission_132970515": the zip's folder of the submission's files
  std::vector<GradescopeSubmitter> submitters;
  std::string created_at;  // as written: "2022-09-10 23:47:27.018556000 Z" (grading/core/late.h's parse_time reads it)
  int line = 0;            // of the folder's key, for messages
};

// Reads TEXT, a submission_metadata.yml. False, with "line N: what" in *error, when it is not in
// the shape above or a value it reads is written in a way this reader does not know: it refuses
// rather than guess a name or a time.
bool read_gradescope_metadata(const std::string& text, std::vector<GradescopeSubmission>* submissions, std::string* error);

}  // namespace grade
