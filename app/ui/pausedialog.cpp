#include "ui/pausedialog.h"

#include "core/extensionnotes.h"
#include "core/leasefacts.h"
#include "ui/dialogfit.h"

#include <QComboBox>
#include <QDateTimeEdit>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace leader::console {

namespace {

QLabel *wrappedLabel(const QString &objectName)
{
    auto label = new QLabel;
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    return label;
}

// What each choice of "Ends" asks of the database: a duration for lease::intervalFromDuration.
QString durationOf(PauseDialog::EndChoice choice)
{
    switch (choice) {
    case PauseDialog::EndChoice::After15Minutes:
        return QStringLiteral("15m");
    case PauseDialog::EndChoice::After1Hour:
        return QStringLiteral("1h");
    case PauseDialog::EndChoice::After4Hours:
        return QStringLiteral("4h");
    case PauseDialog::EndChoice::AtTime:
    case PauseDialog::EndChoice::UntilUnpaused:
        break;
    }
    return {};
}

} // namespace

PauseDialog::PauseDialog(Mode mode, const QStringList &roles, const QString &target,
                         QWidget *parent)
    : QDialog(parent)
    , m_mode(mode)
    , m_roles(roles)
    , m_target(target)
{
    setObjectName(QStringLiteral("PauseDialog"));
    setModal(true);
    const QString what = roles.size() == 1 ? roles.constFirst() : tr("%1 roles").arg(roles.size());
    setWindowTitle(mode == Mode::Pause ? tr("Pause %1").arg(what) : tr("Unpause %1").arg(what));

    m_pages = new QStackedWidget;
    m_pages->setObjectName(QStringLiteral("pages"));
    buildEditPage();
    buildConfirmPage();
    auto layout = new QVBoxLayout(this);
    layout->addWidget(m_pages);

    m_whoEdit->setText(defaultWho());
    if (m_mode == Mode::Pause)
        showEdit();
    else
        showConfirmation();
    fitToContents(this);
}

PauseDialog::~PauseDialog() = default;

QString PauseDialog::defaultWho()
{
    return console::defaultWho();
}

QString PauseDialog::atTimeText() const
{
    // The zone the time is typed in, named where it is chosen: the window's rule may be UTC.
    return tr("at a time (%1)…").arg(TimeRule::zoneName(m_zone));
}

QString PauseDialog::subject() const
{
    if (m_roles.size() == 1)
        return m_roles.constFirst();
    return tr("%1 roles: %2").arg(m_roles.size()).arg(m_roles.join(QStringLiteral(", ")));
}

void PauseDialog::buildEditPage()
{
    m_editPage = new QWidget;
    m_editPage->setObjectName(QStringLiteral("editPage"));

    auto explanation = wrappedLabel(QStringLiteral("explanationLabel"));
    explanation->setText(
            tr("Pausing stops %1 on every replica of the cluster at its next heartbeat (within 3 "
               "s): the running tick is cancelled, and nothing restarts it until it is unpaused "
               "or its pause ends.")
                    .arg(subject()));

    m_whoEdit = new QLineEdit;
    m_whoEdit->setObjectName(QStringLiteral("whoEdit"));
    m_whoEdit->setMaxLength(MaxWhoLength);
    m_whyEdit = new QLineEdit;
    m_whyEdit->setObjectName(QStringLiteral("whyEdit"));
    m_whyEdit->setMaxLength(MaxWhyLength);
    m_whyEdit->setPlaceholderText(
            m_mode == Mode::Pause ? tr("Required: recorded with the pause and shown to everyone")
                                  : tr("Optional: recorded in the pause log"));

    m_endCombo = new QComboBox;
    m_endCombo->setObjectName(QStringLiteral("endCombo"));
    m_endCombo->addItem(tr("in 15 minutes"), int(EndChoice::After15Minutes));
    m_endCombo->addItem(tr("in 1 hour"), int(EndChoice::After1Hour));
    m_endCombo->addItem(tr("in 4 hours"), int(EndChoice::After4Hours));
    m_endCombo->addItem(atTimeText(), int(EndChoice::AtTime));
    m_endCombo->addItem(tr("when unpaused"), int(EndChoice::UntilUnpaused));
    m_endCombo->setToolTip(tr("A pause with an end ends by itself on the database clock, with no "
                              "console running; its end is logged."));
    m_endTimeEdit = new QDateTimeEdit;
    m_endTimeEdit->setObjectName(QStringLiteral("endTimeEdit"));
    m_endTimeEdit->setCalendarPopup(true);
    m_endTimeEdit->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm"));
    m_endTimeEdit->setDateTime(QDateTime::currentDateTime().addSecs(3600));
    m_endNeedsLabel = wrappedLabel(QStringLiteral("endNeedsLabel"));
    m_endNeedsLabel->hide();
    m_hintLabel = wrappedLabel(QStringLiteral("hintLabel"));

    m_cancelButton = new QPushButton(tr("Cancel"));
    m_cancelButton->setObjectName(QStringLiteral("cancelButton"));
    m_cancelButton->setAutoDefault(false);
    m_continueButton
            = new QPushButton(m_roles.size() == 1 ? tr("Pause %1…").arg(m_roles.constFirst())
                                                  : tr("Pause %1 roles…").arg(m_roles.size()));
    m_continueButton->setObjectName(QStringLiteral("okButton"));
    // Only leads to the confirmation page, so Enter may press it.
    m_continueButton->setAutoDefault(true);

    auto form = new QFormLayout;
    // An unpause asks who and why on its one page, beside the confirmation (buildConfirmPage).
    if (m_mode == Mode::Pause) {
        form->addRow(tr("Paused &by:"), m_whoEdit);
        form->addRow(tr("&Reason:"), m_whyEdit);
    }
    form->addRow(tr("&Ends:"), m_endCombo);
    form->addRow(QString(), m_endTimeEdit);
    auto buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_cancelButton);
    buttons->addWidget(m_continueButton);
    auto layout = new QVBoxLayout(m_editPage);
    layout->addWidget(explanation);
    layout->addLayout(form);
    // Under the form, not in a row of it: a wrapped label in a form row gets one line's height.
    layout->addWidget(m_endNeedsLabel);
    layout->addWidget(m_hintLabel);
    layout->addStretch();
    layout->addLayout(buttons);
    m_pages->addWidget(m_editPage);

    setEndChoice(EndChoice::UntilUnpaused);
    connect(m_whoEdit, &QLineEdit::textChanged, this, &PauseDialog::validate);
    connect(m_whyEdit, &QLineEdit::textChanged, this, &PauseDialog::validate);
    connect(m_endCombo, &QComboBox::currentIndexChanged, this, &PauseDialog::validate);
    connect(m_endTimeEdit, &QDateTimeEdit::dateTimeChanged, this, &PauseDialog::validate);
    connect(m_cancelButton, &QPushButton::clicked, this, &PauseDialog::reject);
    connect(m_continueButton, &QPushButton::clicked, this, &PauseDialog::showConfirmation);
    validate();
}

void PauseDialog::buildConfirmPage()
{
    m_confirmPage = new QWidget;
    m_confirmPage->setObjectName(QStringLiteral("confirmPage"));
    m_confirmLabel = wrappedLabel(QStringLiteral("confirmLabel"));
    m_typeLabel = wrappedLabel(QStringLiteral("typeLabel"));
    m_typedEdit = new QLineEdit;
    m_typedEdit->setObjectName(QStringLiteral("typedNameEdit"));
    m_typeLabel->setBuddy(m_typedEdit);
    m_noteNeedsLabel = wrappedLabel(QStringLiteral("noteNeedsLabel"));
    m_noteNeedsLabel->hide();

    m_backButton = new QPushButton(m_mode == Mode::Pause ? tr("Back") : tr("Cancel"));
    m_backButton->setObjectName(QStringLiteral("backButton"));
    const QString what
            = m_roles.size() == 1 ? m_roles.constFirst() : tr("%1 roles").arg(m_roles.size());
    m_confirmButton = new QPushButton(m_mode == Mode::Pause ? tr("Pause %1").arg(what)
                                                            : tr("Unpause %1").arg(what));
    m_confirmButton->setObjectName(QStringLiteral("confirmButton"));
    // Enter must never be the destructive choice: it presses Back/Cancel.
    m_confirmButton->setAutoDefault(false);

    auto buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_backButton);
    buttons->addWidget(m_confirmButton);
    auto layout = new QVBoxLayout(m_confirmPage);
    layout->addWidget(m_confirmLabel);
    if (m_mode == Mode::Unpause) {
        auto form = new QFormLayout;
        form->addRow(tr("Unpaused &by:"), m_whoEdit);
        form->addRow(tr("&Reason:"), m_whyEdit);
        layout->addLayout(form);
        layout->addWidget(m_noteNeedsLabel);
    }
    layout->addWidget(m_typeLabel);
    layout->addWidget(m_typedEdit);
    layout->addStretch();
    layout->addLayout(buttons);
    m_pages->addWidget(m_confirmPage);
    setTypedConfirmation(false);

    connect(m_backButton, &QPushButton::clicked, this, [this] {
        if (m_mode == Mode::Pause)
            showEdit();
        else
            reject();
    });
    connect(m_typedEdit, &QLineEdit::textChanged, this,
            [this] { m_confirmButton->setEnabled(canConfirm()); });
    connect(m_confirmButton, &QPushButton::clicked, this, &PauseDialog::confirm);
}

QString PauseDialog::who() const
{
    // The ADR's leader_unpause(role) takes neither: nothing typed is sent as if it were kept.
    if (m_mode == Mode::Unpause && !m_notesOffered)
        return {};
    return m_whoEdit->text().trimmed();
}

QString PauseDialog::why() const
{
    if (m_mode == Mode::Unpause && !m_notesOffered)
        return {};
    return m_whyEdit->text().trimmed();
}

PauseDialog::EndChoice PauseDialog::endChoice() const
{
    // Without the pause log the combo is off, whatever a caller set it to.
    return m_endsOffered ? EndChoice(m_endCombo->currentData().toInt()) : EndChoice::UntilUnpaused;
}

PauseEnd PauseDialog::pauseEnd() const
{
    if (m_mode != Mode::Pause)
        return {};
    const auto choice = endChoice();
    if (choice == EndChoice::AtTime)
        return {{}, m_endTimeEdit->dateTime().toUTC()};
    return {durationOf(choice), {}};
}

void PauseDialog::setWho(const QString &who)
{
    m_whoEdit->setText(who);
}

void PauseDialog::setWhy(const QString &why)
{
    m_whyEdit->setText(why);
}

void PauseDialog::setEndChoice(EndChoice choice)
{
    if (!m_endsOffered)
        choice = EndChoice::UntilUnpaused;
    m_endCombo->setCurrentIndex(m_endCombo->findData(int(choice)));
    validate();
}

void PauseDialog::setEndTime(const QDateTime &at)
{
    m_endTimeEdit->setDateTime(TimeRule::inZone(at, m_zone));
}

void PauseDialog::setTimeZoneMode(TimeZoneMode zone)
{
    const QDateTime at = m_endTimeEdit->dateTime();
    m_zone = zone;
    m_endTimeEdit->setTimeSpec(zone == TimeZoneMode::Utc ? Qt::UTC : Qt::LocalTime);
    m_endTimeEdit->setDateTime(TimeRule::inZone(at, zone));
    m_endTimeEdit->setToolTip(tr("The end, in %1").arg(TimeRule::zoneName(zone)));
    m_endCombo->setItemText(m_endCombo->findData(int(EndChoice::AtTime)), atTimeText());
}

void PauseDialog::setCurrentPauses(const QList<RoleStatus> &paused)
{
    m_paused = paused;
    if (isConfirming())
        showConfirmation();
}

void PauseDialog::setTypedConfirmation(bool required)
{
    m_typedConfirmation = required;
    m_typeLabel->setVisible(required);
    m_typedEdit->setVisible(required);
    m_typeLabel->setText(m_roles.size() == 1
                                 ? tr("This is a production database. Type %1 to confirm:")
                                           .arg(m_roles.constFirst())
                                 : tr("This is a production database. Type the name of each of "
                                      "the %1 roles to confirm, separated by spaces:")
                                           .arg(m_roles.size()));
    m_confirmButton->setEnabled(canConfirm());
}

void PauseDialog::setFeatures(const DatabaseFeatures &features)
{
    const QString endNeeds = extensionNeeded(features, ExtensionFeature::PauseEnd);
    m_endsOffered = endNeeds.isEmpty();
    if (!m_endsOffered)
        setEndChoice(EndChoice::UntilUnpaused);
    m_endCombo->setEnabled(m_endsOffered);
    m_endNeedsLabel->setText(endNeeds);
    m_endNeedsLabel->setVisible(m_mode == Mode::Pause && !m_endsOffered);

    const QString noteNeeds = extensionNeeded(features, ExtensionFeature::UnpauseNote);
    m_notesOffered = noteNeeds.isEmpty();
    // A pause's who and why are the ADR's paused_by and pause_reason: always there.
    const bool notes = m_mode == Mode::Pause || m_notesOffered;
    m_whoEdit->setEnabled(notes);
    m_whyEdit->setEnabled(notes);
    if (!notes) {
        // Greyed but filled in, they would look recorded.
        m_whoEdit->clear();
        m_whyEdit->clear();
        m_whoEdit->setPlaceholderText(tr("not recorded on this database"));
        m_whyEdit->setPlaceholderText(tr("not recorded on this database"));
    }
    m_noteNeedsLabel->setText(noteNeeds);
    m_noteNeedsLabel->setVisible(!notes);
    validate();
    if (isConfirming())
        showConfirmation();
}

bool PauseDialog::isConfirming() const
{
    return m_pages->currentWidget() == m_confirmPage;
}

bool PauseDialog::canContinue() const
{
    if (m_mode == Mode::Unpause)
        return true;
    // leader_pause() raises on an empty who or why, or an end not after now; refuse here rather
    // than there. The end is checked against this machine's clock only to catch a slip: the
    // database checks it again on its own.
    if (who().isEmpty() || why().isEmpty())
        return false;
    const auto choice = endChoice();
    return choice != EndChoice::AtTime
           || m_endTimeEdit->dateTime() > QDateTime::currentDateTimeUtc();
}

bool PauseDialog::canConfirm() const
{
    if (!canContinue())
        return false;
    if (!m_typedConfirmation)
        return true;
    static const QRegularExpression separators(QStringLiteral("[\\s,]+"));
    QStringList typed = m_typedEdit->text().split(separators, Qt::SkipEmptyParts);
    QStringList wanted = m_roles;
    typed.sort();
    wanted.sort();
    return typed == wanted;
}

void PauseDialog::validate()
{
    if (!m_hintLabel)
        return;
    const bool atTime = endChoice() == EndChoice::AtTime;
    m_endTimeEdit->setVisible(atTime);
    QString hint;
    if (who().isEmpty())
        hint = tr("Say who is pausing (recorded as paused_by).");
    else if (why().isEmpty())
        hint = tr("Give a reason (recorded as pause_reason).");
    else if (!canContinue())
        hint = tr("The end must be in the future.");
    m_hintLabel->setText(hint);
    m_hintLabel->setVisible(!hint.isEmpty());
    m_continueButton->setEnabled(canContinue());
}

void PauseDialog::showEdit()
{
    m_pages->setCurrentWidget(m_editPage);
    m_continueButton->setDefault(true);
    m_backButton->setDefault(false);
    m_whyEdit->setFocus();
}

QString PauseDialog::endText() const
{
    switch (endChoice()) {
    case EndChoice::After15Minutes:
        return tr("It ends by itself 15 minutes after it starts, on the database clock.");
    case EndChoice::After1Hour:
        return tr("It ends by itself 1 hour after it starts, on the database clock.");
    case EndChoice::After4Hours:
        return tr("It ends by itself 4 hours after it starts, on the database clock.");
    case EndChoice::AtTime:
        return tr("It ends by itself at %1, on the database clock.")
                .arg(TimeRule::full(pauseEnd().at, m_zone));
    case EndChoice::UntilUnpaused:
        break;
    }
    return tr("It stays stopped until unpaused.");
}

QString PauseDialog::pauseText(const RoleStatus &status) const
{
    QString text = tr("%1 was paused by %2 at %3: %4")
                           .arg(status.role, status.pausedBy,
                                TimeRule::full(status.pausedAt, m_zone), status.pauseReason);
    if (status.pausedUntil.isValid())
        text += tr(" (until %1)").arg(TimeRule::full(status.pausedUntil, m_zone));
    return text;
}

void PauseDialog::showConfirmation()
{
    if (!canContinue())
        return;
    const QString on = m_target.isEmpty() ? QString() : tr(" on %1").arg(m_target);
    QStringList paragraphs;
    if (m_mode == Mode::Pause) {
        paragraphs << tr("Pause %1%2?").arg(subject(), on)
                   << tr("Paused by %1 because: %2").arg(who(), why())
                   << tr("Stops on every replica within 3 s. %1").arg(endText());
        for (const RoleStatus &status : std::as_const(m_paused))
            paragraphs << pauseText(status) + tr("; that pause stays as it is.");
    } else {
        paragraphs << tr("Unpause %1%2?").arg(subject(), on);
        for (const RoleStatus &status : std::as_const(m_paused))
            paragraphs << pauseText(status);
        paragraphs << tr("It becomes due at the next poll; not_before, if set, still applies.");
    }
    if (m_roles.size() > 1)
        paragraphs << tr("All %1 change in one transaction, or none does.").arg(m_roles.size());
    m_confirmLabel->setText(paragraphs.join(QStringLiteral("\n\n")));
    m_pages->setCurrentWidget(m_confirmPage);
    m_confirmButton->setEnabled(canConfirm());
    m_continueButton->setDefault(false);
    // An unpause's reason is typed on this page: Enter there neither confirms nor cancels.
    m_backButton->setDefault(m_mode == Mode::Pause);
    m_backButton->setAutoDefault(m_mode == Mode::Pause);
    if (m_typedConfirmation)
        m_typedEdit->setFocus();
    else if (m_mode == Mode::Unpause && m_notesOffered)
        m_whyEdit->setFocus();
    else
        m_backButton->setFocus();
}

void PauseDialog::confirm()
{
    if (!isConfirming() || !canConfirm())
        return;
    m_confirmed = true;
    QDialog::done(QDialog::Accepted);
}

void PauseDialog::done(int result)
{
    // Enter, a shortcut or a caller's accept()/done() can only reach the confirmation page; only
    // its confirm button accepts.
    if (result == QDialog::Accepted && !m_confirmed) {
        if (!isConfirming())
            showConfirmation();
        return;
    }
    QDialog::done(result);
}

void PauseDialog::reject()
{
    // Escape on the confirmation page of a pause steps back rather than discarding the reason.
    if (m_mode == Mode::Pause && isConfirming()) {
        showEdit();
        return;
    }
    QDialog::reject();
}

} // namespace leader::console
