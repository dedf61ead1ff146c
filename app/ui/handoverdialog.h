#pragma once

#include <QDialog>
#include <QStringList>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace leader::console {

// What the status row says of the holders outside the replica registry (extension 0189): they
// take no hand-over request and ignore its preference.
struct HandoverOutside
{
    bool holderOutside = false;            // the holder asked is one: it runs its tick to its end
    double heldForSeconds = 0;             // then: since its ACQUIRE, on the database clock
    std::optional<double> lastTickSeconds; // then: its previous tick of the role, when seen
    bool seen = false; // holders outside the registry led the role in the last hour
};

// Handing one held role over now (extension 0185) from the status table: to which replica (one
// that could take it: live, undrained, running the role, not its holder; or any other), who and
// why (required), and on a production profile the role's name typed, as the pause dialog asks.
// A holder outside the registry (extension 0189) is not promised to stop: the dialog says when its
// tick ends instead, and that holders outside the registry ignore the preference. The dialog
// holds plain values, so a poll behind it changes nothing.
class HandoverDialog final : public QDialog
{
    Q_OBJECT

public:
    static constexpr int MaxWhyLength = 500;
    static constexpr int MaxWhoLength = 200;

    // holder: how the status table names the holder; candidates: the replicas' names.
    HandoverDialog(const QString &role, const QString &holder, const QStringList &candidates,
                   const QString &target, const HandoverOutside &outside = {},
                   QWidget *parent = nullptr);
    ~HandoverDialog() override;

    QString role() const { return m_role; }
    QString toReplica() const; // empty: any replica but the holder
    QString who() const;       // trimmed
    QString why() const;       // trimmed

    void setTypedConfirmation(bool required);
    bool canConfirm() const;

    // What happens to a holder outside the registry asked to hand over, as leaderctl handover
    // says it: "<holder> is outside the replica registry and does not take hand-over requests:
    // its tick ends when its work does, about 3.0 s from now (its last tick lasted 5.0 s), or at
    // its lease's expiry if it stops renewing".
    static QString outsideHolderClause(const QString &holder, double heldForSeconds,
                                       std::optional<double> lastTickSeconds);

private:
    void validate();

    const QString m_role;
    bool m_typed = false;
    QComboBox *m_targetCombo;
    QLineEdit *m_whoEdit;
    QLineEdit *m_whyEdit;
    QLabel *m_typeLabel;
    QLineEdit *m_typedEdit;
    QPushButton *m_confirmButton;
};

} // namespace leader::console
