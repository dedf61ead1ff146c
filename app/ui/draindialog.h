#pragma once

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
// roles'. The dialog holds plain strings, so a registry read behind it changes nothing.
class DrainDialog final : public QDialog
{
    Q_OBJECT

public:
    enum class Mode { Drain, Undrain };
    Q_ENUM(Mode)

    static constexpr int MaxWhyLength = 500;
    static constexpr int MaxWhoLength = 200;

    // orphans: the roles draining it would leave with no eligible replica (Drain only).
    DrainDialog(Mode mode, const QString &replica, const QStringList &orphans,
                const QString &target, QWidget *parent = nullptr);
    ~DrainDialog() override;

    Mode mode() const { return m_mode; }
    QString replica() const { return m_replica; }
    QStringList orphans() const { return m_orphans; }
    QString who() const; // trimmed
    QString why() const; // trimmed
    // Drain: the operator ticked "Drain anyway" for the orphaned roles.
    bool force() const;

    void setTypedConfirmation(bool required);
    bool canConfirm() const;

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
