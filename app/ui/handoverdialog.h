#pragma once

#include <QDialog>
#include <QStringList>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace leader::console {

// Handing one held role over now (extension 0185) from the status table: to which replica (one
// that could take it: live, undrained, running the role, not its holder; or any other), who and
// why (required), and on a production profile the role's name typed, as the pause dialog asks.
// The dialog holds plain strings, so a poll behind it changes nothing.
class HandoverDialog final : public QDialog
{
    Q_OBJECT

public:
    static constexpr int MaxWhyLength = 500;
    static constexpr int MaxWhoLength = 200;

    // holder: how the status table names the holder; candidates: the replicas' names.
    HandoverDialog(const QString &role, const QString &holder, const QStringList &candidates,
                   const QString &target, QWidget *parent = nullptr);
    ~HandoverDialog() override;

    QString role() const { return m_role; }
    QString toReplica() const; // empty: any replica but the holder
    QString who() const;       // trimmed
    QString why() const;       // trimmed

    void setTypedConfirmation(bool required);
    bool canConfirm() const;

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
