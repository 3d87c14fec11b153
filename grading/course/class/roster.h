// Who is in the class: one student per entry of the submissions folder (a folder, or a .zip or
// .tar of one), and, with a roster, every student of the roster too, handed in or not.
#pragma once

#include <string>
#include <vector>

namespace grade {

struct Student {
  std::string id;        // the roster's, else the entry's name without its archive ending
  std::string name;      // the roster's, when it has a name column
  std::string nickname;  // the roster's: the student opted in to the leaderboard under it
  std::string canvas_id;  // Canvas's user id (the roster's canvas_id, or a Canvas download's): canvas.csv's ID
  std::string email;      // the roster's: a Gradescope download's submitters are matched by it too
  std::string entry;     // the folder or archive handed in; "" when the roster's student has none
  std::string slug;      // the student's folder under the class's OUT: safe to use as a file name
  bool on_roster = false;
};

// Student-controlled text made fit for a report: valid UTF-8, control characters as \xNN.
std::string printable(const std::string& text);

// A folder name for student ID: its letters, digits, . - _ (at most 40), and a hash of the whole
// id, so that two ids never share a folder ("José" and "Jos?" differ): "Jos-3f2a1b9c0d4e5f60".
std::string student_slug(const std::string& id);

// Reads the roster CSV at PATH: a header naming an id column (id, sid or student_id), and
// optionally name, nickname, email and canvas_id (Canvas's user id: "canvas user id" too)
// columns. False, with the reason in *error, when it cannot.
bool read_roster(const std::string& path, std::vector<Student>* roster, std::string* error);

// Every entry of SUBMISSIONS (hidden ones too: nothing is skipped), merged with ROSTER by id, in
// the order of ids. False, with the reason in *error, when SUBMISSIONS cannot be listed.
bool list_students(const std::string& submissions, const std::vector<Student>& roster, std::vector<Student>* students,
                   std::string* error);

}  // namespace grade
