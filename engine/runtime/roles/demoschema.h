#pragma once

namespace leader::pg {
class Connection;
}

namespace leader::roles {

// Checks, by the tables themselves, that the demo domain (migrations 1001, 1002) is in place.
// Throws schema::SchemaError naming what is missing and the command that adds it.
void requireDemoSchema(pg::Connection &connection);

} // namespace leader::roles
