#include "role.h"

#include "email_outbox/emailoutboxrole.h"

namespace leader::roles {

std::unique_ptr<Role> makeRole(std::string_view name, const RoleOptions &options)
{
    if (name == "email_outbox")
        return std::make_unique<EmailOutboxRole>(options);
    return nullptr;
}

} // namespace leader::roles
