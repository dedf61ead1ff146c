#pragma once

#include "schema/features.h"

#include <QString>

namespace leader::console {

// The console's own controls that need more than ADR-114's 0174 and 0175: on a database without
// their extension (leader_ext) each says so in one line where it would be, naming the extension
// and how to add it (schema::extensionNeeded), and the rest of the console works. The pause
// history and the Replicas tab get their lines from the engine's readers.
enum class ExtensionFeature {
    PauseWake,       // 0176: a pause reaches the holder at once, not at its next heartbeat
    PauseEnd,        // 0177: a pause that ends by itself
    UnpauseNote,     // 0177: who unpaused and why
    TakeoverAtDeath, // 0179: a role taken at its holder's death, not only at its expiry
};

bool offers(const schema::LeaseFeatures &features, ExtensionFeature feature);
// "a pause with an end needs the extension leader_ext 0177 (…); add it with leaderctl migrate, or
// through your migration tool: leaderctl migrate --print-sql …".
QString extensionNeeded(ExtensionFeature feature);
// Empty when the database offers it.
QString extensionNeeded(const schema::LeaseFeatures &features, ExtensionFeature feature);

} // namespace leader::console
