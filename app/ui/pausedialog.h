#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;

namespace leader::console {

// Pausing or unpausing one role, with a confirmation page that only the user can leave. The dialog
// holds plain strings (role, target), not a model index, so a status refresh behind it cannot
// change or close it; accept() or done(Accepted) from anywhere but the confirm button shows the
// confirmation page instead of accepting.
class PauseDialog final : public QDialog
{
    Q_OBJECT

public:
    enum class Mode { Pause, Unpause };
    Q_ENUM(Mode)

    static constexpr int MaxWhyLength = 500;
    static constexpr int MaxWhoLength = 200;

    // target: what the role runs against (e.g. the profile's describe()); may be empty.
    PauseDialog(Mode mode, const QString &role, const QString &target, QWidget *parent = nullptr);
    ~PauseDialog() override;

    Mode mode() const { return m_mode; }
    QString role() const { return m_role; }
    QString target() const { return m_target; }
    QString who() const; // trimmed
    QString why() const; // trimmed

    void setWho(const QString &who);
    void setWhy(const QString &why);
    // Unpause: who paused it and why, shown on the confirmation page.
    void setCurrentPause(const QString &pausedBy, const QString &reason);

    bool isConfirming() const; // the confirmation page is showing
    bool canContinue() const;  // Pause: who and why given

    // $USER (or the home directory's name) @ the machine's host name.
    static QString defaultWho();

    void done(int result) override; // Accepted only from the confirm button
    void reject() override;         // on a pause's confirmation page: back to editing

private:
    void buildEditPage();
    void buildConfirmPage();
    void validate();
    void showConfirmation();
    void showEdit();
    void confirm();

    const Mode m_mode;
    const QString m_role;
    const QString m_target;
    QString m_pausedBy;
    QString m_pauseReason;
    bool m_confirmed = false;

    QStackedWidget *m_pages = nullptr;
    QWidget *m_editPage = nullptr;
    QWidget *m_confirmPage = nullptr;
    QLineEdit *m_whoEdit = nullptr;
    QLineEdit *m_whyEdit = nullptr;
    QLabel *m_hintLabel = nullptr;
    QPushButton *m_continueButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QLabel *m_confirmLabel = nullptr;
    QPushButton *m_backButton = nullptr;
    QPushButton *m_confirmButton = nullptr;
};

} // namespace leader::console
