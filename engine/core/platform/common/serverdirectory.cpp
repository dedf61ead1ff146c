#include "platform/serverdirectory.h"

namespace leader::platform {

DirectoryRefused DirectoryRefused::unwritable(const std::string &what,
                                              const std::filesystem::path &path,
                                              const std::error_code &error)
{
    return DirectoryRefused(what + " " + path.string() + " (" + error.message()
                            + "): choose a directory you can write to");
}

} // namespace leader::platform
