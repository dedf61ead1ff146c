#include "extensionnotes.h"

#include "log/nametable.h"
#include "schema/features.h"

#include <QCoreApplication>

#include <array>

namespace leader::console {

namespace {

using schema::Extension;

struct Need
{
    ExtensionFeature feature;
    Extension extension;
    const char *subject; // how extensionNeeded's sentence starts
};

constexpr std::array<Need, 8> Needs{{
        {ExtensionFeature::PauseWake, Extension::PauseNotify,
         QT_TRANSLATE_NOOP("ExtensionNotes", "a pause that reaches the holder at once")},
        {ExtensionFeature::PauseEnd, Extension::PauseLog,
         QT_TRANSLATE_NOOP("ExtensionNotes", "a pause with an end")},
        {ExtensionFeature::UnpauseNote, Extension::PauseLog,
         QT_TRANSLATE_NOOP("ExtensionNotes", "who unpaused and why")},
        {ExtensionFeature::ReplicaRegistry, Extension::ReplicaRegistry,
         QT_TRANSLATE_NOOP("ExtensionNotes", "the replica registry")},
        {ExtensionFeature::TakeoverAtDeath, Extension::HolderSession,
         QT_TRANSLATE_NOOP("ExtensionNotes", "the takeover at a holder's death")},
        {ExtensionFeature::ReplicaDrain, Extension::ReplicaDrain,
         QT_TRANSLATE_NOOP("ExtensionNotes", "draining a replica")},
        {ExtensionFeature::Handover, Extension::Handover,
         QT_TRANSLATE_NOOP("ExtensionNotes", "handing a role over now")},
        {ExtensionFeature::OutsideHolders, Extension::AdrFleet,
         QT_TRANSLATE_NOOP("ExtensionNotes", "the holders outside the replica registry")},
}};
static_assert(namesEveryValue<ExtensionFeature>(Needs,
                                                [](const Need &need) { return need.feature; }));

const Need &needOf(ExtensionFeature feature)
{
    for (const Need &need : Needs) {
        if (need.feature == feature)
            return need;
    }
    Q_UNREACHABLE();
}

} // namespace

bool offers(const DatabaseFeatures &features, ExtensionFeature feature)
{
    // The layout of an earlier leaderctl is offered by nothing until leaderctl migrate moves it,
    // as the engine's readers and writers have it.
    return features.extension >= static_cast<int>(needOf(feature).extension)
           && !features.legacyLayout;
}

QString extensionNeeded(ExtensionFeature feature)
{
    const Need &need = needOf(feature);
    const QString subject = QCoreApplication::translate("ExtensionNotes", need.subject);
    return QString::fromStdString(schema::extensionNeeded(subject.toStdString(), need.extension));
}

QString extensionNeeded(const DatabaseFeatures &features, ExtensionFeature feature)
{
    if (offers(features, feature))
        return {};
    // The extensions may well be there: adding them would not help this login.
    if (features.extensionsHidden)
        return QCoreApplication::translate("ExtensionNotes",
                                           "%1 needs the extensions in leader_ext, which this "
                                           "login may not read; connect as a login holding "
                                           "hardcount_app or hardcount_monitor")
                .arg(QCoreApplication::translate("ExtensionNotes", needOf(feature).subject));
    return extensionNeeded(feature);
}

} // namespace leader::console
