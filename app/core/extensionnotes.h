#pragma once

#include <QString>

namespace leader::console {

// The console's own controls that need more than ADR-114's 0174 and 0175: on a database without
// their extension (leader_ext) each says so in one line where it would be, naming the extension
// and how to add it (schema::extensionNeeded), and the rest of the console works. The pause
// history gets its line from the engine's reader, the Replicas tab too when the reader has one.
enum class ExtensionFeature {
    PauseWake,       // 0176: a pause reaches the holder at once, not at its next heartbeat
    PauseEnd,        // 0177: a pause that ends by itself
    UnpauseNote,     // 0177: who unpaused and why
    ReplicaRegistry, // 0178: the Replicas tab
    TakeoverAtDeath, // 0179: a role taken at its holder's death, not only at its expiry
    ReplicaDrain,    // 0183: Drain and Undrain in the Replicas tab
    Handover,        // 0185: Hand over… on a held role
    OutsideHolders,  // 0189: who holds a role from outside the registry (they take no request)
};

// What a database offers, as the poller probed it: the fields of the engine's
// schema::LeaseFeatures, copied by StatusPoller so that the models and widgets include no engine
// header.
struct DatabaseFeatures
{
    bool leaseTable = false; // 0174
    bool notBefore = false;  // 0175
    // The highest extension version applied with every one before it; 0 when none, or when the
    // login may not read leader_ext (extensionsHidden).
    int extension = 0;
    bool extensionsHidden = false; // leader_ext is there, but this login may not read it
    bool legacyLayout = false;     // the extensions are where an earlier leaderctl put them

    bool adr() const { return leaseTable && notBefore; }

    friend bool operator==(const DatabaseFeatures &, const DatabaseFeatures &) = default;
};

bool offers(const DatabaseFeatures &features, ExtensionFeature feature);
// "a pause with an end needs the extension leader_ext 0177 (…); add it with leaderctl migrate, or
// through your migration tool: leaderctl migrate --print-sql …".
QString extensionNeeded(ExtensionFeature feature);
// Empty when the database offers it.
QString extensionNeeded(const DatabaseFeatures &features, ExtensionFeature feature);

} // namespace leader::console
