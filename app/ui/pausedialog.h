#pragma once

#include "core/statustypes.h"
#include "core/timerule.h"

#include <QDialog>
#include <QStringList>

class QComboBox;
class QDateTimeEdit;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;

namespace leader::console {

// Pausing or unpausing one role or several (one transaction: all of them or none), with a
// confirmation page that only the user can leave. The dialog holds plain strings (roles, target),
// not model indexes, so a status refresh behind it cannot change or close it; accept() or
// done(Accepted) from anywhere but the confirm button shows the confirmation page instead of
// accepting. On a production profile the confirm button stays disabled until the operator has
// typed the role's name (every role's name, for several).
class PauseDialog final : public QDialog
{
    Q_OBJECT

public:
    enum class Mode { Pause, Unpause };
    Q_ENUM(Mode)

    // The choices of "Ends", in the combo's order.
    enum class EndChoice { After15Minutes, After1Hour, After4Hours, AtTime, UntilUnpaused };
    Q_ENUM(EndChoice)

    static constexpr int MaxWhyLength = 500;
    static constexpr int MaxWhoLength = 200;

    // target: what the roles run against (e.g. the profile's describe()); may be empty.
    PauseDialog(Mode mode, const QStringList &roles, const QString &target,
                QWidget *parent = nullptr);
    ~PauseDialog() override;

    Mode mode() const { return m_mode; }
    QStringList roles() const { return m_roles; }
    QString target() const { return m_target; }
    QString who() const; // trimmed
    QString why() const; // trimmed
    PauseEnd pauseEnd() const;

    void setWho(const QString &who);
    void setWhy(const QString &why);
    void setEndChoice(EndChoice choice);
    void setEndTime(const QDateTime &at); // for EndChoice::AtTime
    // The zone the end time is typed and times are shown in (the window's time rule).
    void setTimeZoneMode(TimeZoneMode zone);
    // The selected roles that are paused now: the confirmation page says who paused each, when
    // and why (a pause request leaves those as they are).
    void setCurrentPauses(const QList<RoleStatus> &paused);
    // Production: confirming needs the role's name typed (each name, for several roles).
    void setTypedConfirmation(bool required);
    // What the database offers: without the pause log (extension 0177) a pause has no end and an
    // unpause records no who or why (the ADR's leader_pause and leader_unpause), so those controls
    // are disabled with the line saying what they need beside them.
    void setFeatures(const DatabaseFeatures &features);

    bool isConfirming() const; // the confirmation page is showing
    bool canContinue() const;  // Pause: who, why and an end in the future given
    bool canConfirm() const;   // and, on production, the names typed

    // leaderctl's default too: defaultWho() (core/leasefacts.h).
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
    QString subject() const;    // the role, or "3 roles: " and their names
    QString atTimeText() const; // "at a time (UTC)…"
    EndChoice endChoice() const;
    QString endText() const;
    QString pauseText(const RoleStatus &status) const;

    const Mode m_mode;
    const QStringList m_roles;
    const QString m_target;
    QList<RoleStatus> m_paused;
    TimeZoneMode m_zone = TimeZoneMode::Local;
    bool m_typedConfirmation = false;
    bool m_confirmed = false;
    bool m_endsOffered = true;  // a pause may end by itself
    bool m_notesOffered = true; // an unpause records who and why

    QStackedWidget *m_pages = nullptr;
    QWidget *m_editPage = nullptr;
    QWidget *m_confirmPage = nullptr;
    QLineEdit *m_whoEdit = nullptr;
    QLineEdit *m_whyEdit = nullptr;
    QComboBox *m_endCombo = nullptr;
    QDateTimeEdit *m_endTimeEdit = nullptr;
    QLabel *m_endNeedsLabel = nullptr;
    QLabel *m_noteNeedsLabel = nullptr;
    QLabel *m_hintLabel = nullptr;
    QPushButton *m_continueButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QLabel *m_confirmLabel = nullptr;
    QLabel *m_typeLabel = nullptr;
    QLineEdit *m_typedEdit = nullptr;
    QPushButton *m_backButton = nullptr;
    QPushButton *m_confirmButton = nullptr;
};

} // namespace leader::console
