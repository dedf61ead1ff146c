#include "clusterroot.h"

#include "embedded/cluster.h"
#include "platform/process.h"

#include <QFile>
#include <QTemporaryDir>

namespace leader::test {

bool openToServerAccount(const QTemporaryDir &root)
{
    if (!root.isValid())
        return false;
    return !platform::isRoot()
           || QFile::setPermissions(root.path(), QFile::ReadOwner | QFile::WriteOwner
                                                         | QFile::ExeOwner | QFile::ExeGroup
                                                         | QFile::ExeOther);
}

QString whyNoCluster()
{
    try {
        embedded::Cluster::findBinDir();
    } catch (const std::exception &error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

} // namespace leader::test
