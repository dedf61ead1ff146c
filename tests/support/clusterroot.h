#pragma once

#include <QString>

class QTemporaryDir;

namespace leader::test {

// For the tests that start an embedded cluster in a temporary directory (under /tmp, so that the
// server's own account can reach it when the tests run as root, as in CI).

// Lets the server's account through root when the tests run as root; false when it cannot.
bool openToServerAccount(const QTemporaryDir &root);
// Why no embedded cluster can start here (no PostgreSQL binaries found); empty when one can.
QString whyNoCluster();

} // namespace leader::test
