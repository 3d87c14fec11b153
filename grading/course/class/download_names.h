// The names in an LMS's download (download.h), as its import reads them: a Mac's additions to
// a zip, Canvas's file names (a copy's number, its file ids), Gradescope's submission folders,
// and whether a name can name a student's folder. The import's own (download*.cpp), in a
// namespace of its own.
#pragma once

#include <cstddef>
#include <string>

namespace grade::download {

// S in lower case (ASCII).
std::string lower(std::string s);

// Whether S is digits, and not empty.
bool all_digits(const std::string& s);

// The last part of PATH, a folder's with its slash ("a/b/" gives "b/").
std::string base_name(const std::string& path);

// What a Mac adds when it zips a folder: not the LMS's.
bool mac_noise(const std::string& name);

// Whether ID can name a student's folder of the class folder, which list_students reads back as
// the same id: a name of a file, not hidden, not an archive's (whose ending it would take off).
bool usable_folder_name(const std::string& id);

// The ending that makes NAME an archive (is_archive's): ".tar.gz", ".zip".
std::string archive_ending(const std::string& name);

// FILE without the "-N" that Canvas puts before the extension of a file handed in again.
std::string without_copy_number(const std::string& file);

// Numbers as text, compared as numbers (Canvas's file ids, growing with each upload).
bool numerically_less(const std::string& a, const std::string& b);

// The depth of an entry's name: how many folders it lies in.
size_t depth_of(const std::string& name);

// Whether NAME is a Gradescope submission's folder: submission_ and digits.
bool submission_folder(const std::string& name);

}  // namespace grade::download
