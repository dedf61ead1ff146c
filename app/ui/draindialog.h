#pragma once

#include "core/registrytypes.h"

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace leader::console {

// Draining or undraining one replica (extension 0183) from the Replicas tab: who and why (why is
// required to drain), and two guards before the confirm button works. A drain that would leave
// roles with no eligible replica names them and needs "Drain anyway" ticked (leaderctl's --force);
// on a production profile the replica's name must be typed, as the pause dialog asks for the
// roles'. A role that holders outside the registry ran in the last hour (extension 0189) is never
// said to run nowhere: they take no drain, and the dialog names them. The dialog holds plain
// values, so a registry read behind it changes nothing.
class DrainDialog final : public QDialog
{
    Q_OBJECT

public:
    enum class Mode { Drain, Undrain };
    Q_ENUM(Mode)

    static constexpr int MaxWhyLength = 500;
    static constexpr int MaxWhoLength = 200;

    // orphans: the roles draining it would leave with no eligible replica; outside: the holders
    // outside the registry seen on its roles (Drain only).
    DrainDialog(Mode mode, const QString &replica, const QStringList &orphans,
                const QString &target, const OutsideHolders &outside = {},
                QWidget *parent = nullptr);
    ~DrainDialog() override;

    Mode mode() const { return m_mode; }
    QString replica() const { return m_replica; }
    // Those of the orphans given that no holder outside the registry runs.
    QStringList orphans() const { return m_orphans; }
    QString who() const; // trimmed
    QString why() const; // trimmed
    // Drain: the operator ticked "Drain anyway" for the orphaned roles.
    bool force() const;

    void setTypedConfirmation(bool required);
    bool canConfirm() const;

    // One sentence per role that holders outside the registry ran, as leaderctl drain says it:
    // "billing also runs on holders outside the registry, which take no drain (1 seen in the last
    // hour): adr:42:0000abcd (holds it now)"; or why they could not be read.
    static QStringList outsideLines(const OutsideHolders &outside);

private:
    void validate();

    const Mode m_mode;
    const QString m_replica;
    const QStringList m_orphans;
    bool m_typed = false;
    QLineEdit *m_whoEdit;
    QLineEdit *m_whyEdit;
    QCheckBox *m_force = nullptr;
    QLabel *m_typeLabel;
    QLineEdit *m_typedEdit;
    QPushButton *m_confirmButton;
};

} // namespace leader::console
