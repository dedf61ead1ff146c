#include "ui/pausedialog.h"

#include <QDir>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStackedWidget>
#include <QSysInfo>
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

} // namespace

PauseDialog::PauseDialog(Mode mode, const QString &role, const QString &target, QWidget *parent)
    : QDialog(parent)
    , m_mode(mode)
    , m_role(role)
    , m_target(target)
{
    setObjectName(QStringLiteral("PauseDialog"));
    setModal(true);
    setWindowTitle(mode == Mode::Pause ? tr("Pause %1").arg(role) : tr("Unpause %1").arg(role));

    m_pages = new QStackedWidget;
    m_pages->setObjectName(QStringLiteral("pages"));
    buildEditPage();
    buildConfirmPage();
    auto layout = new QVBoxLayout(this);
    layout->addWidget(m_pages);

    if (m_mode == Mode::Pause) {
        m_whoEdit->setText(defaultWho());
        showEdit();
    } else {
        showConfirmation();
    }
}

PauseDialog::~PauseDialog() = default;

QString PauseDialog::defaultWho()
{
    QString user = qEnvironmentVariable("USER").trimmed();
    if (user.isEmpty())
        user = qEnvironmentVariable("USERNAME").trimmed();
    if (user.isEmpty())
        user = QDir::home().dirName();
    return user + QLatin1Char('@') + QSysInfo::machineHostName();
}

void PauseDialog::buildEditPage()
{
    m_editPage = new QWidget;
    m_editPage->setObjectName(QStringLiteral("editPage"));

    auto explanation = wrappedLabel(QStringLiteral("explanationLabel"));
    explanation->setText(
            tr("Pausing stops %1 on every replica of the cluster at its next heartbeat (within 3 "
               "s): "
               "the running tick is cancelled, and nothing restarts %1 until someone unpauses it.")
                    .arg(m_role));

    m_whoEdit = new QLineEdit;
    m_whoEdit->setObjectName(QStringLiteral("whoEdit"));
    m_whoEdit->setMaxLength(MaxWhoLength);
    m_whyEdit = new QLineEdit;
    m_whyEdit->setObjectName(QStringLiteral("whyEdit"));
    m_whyEdit->setMaxLength(MaxWhyLength);
    m_whyEdit->setPlaceholderText(tr("Required: recorded with the pause and shown to everyone"));
    m_hintLabel = wrappedLabel(QStringLiteral("hintLabel"));

    m_cancelButton = new QPushButton(tr("Cancel"));
    m_cancelButton->setObjectName(QStringLiteral("cancelButton"));
    m_cancelButton->setAutoDefault(false);
    m_continueButton = new QPushButton(tr("Pause %1…").arg(m_role));
    m_continueButton->setObjectName(QStringLiteral("okButton"));
    // Only leads to the confirmation page, so Enter may press it.
    m_continueButton->setAutoDefault(true);

    auto form = new QFormLayout;
    form->addRow(tr("Paused &by:"), m_whoEdit);
    form->addRow(tr("&Reason:"), m_whyEdit);
    auto buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_cancelButton);
    buttons->addWidget(m_continueButton);
    auto layout = new QVBoxLayout(m_editPage);
    layout->addWidget(explanation);
    layout->addLayout(form);
    layout->addWidget(m_hintLabel);
    layout->addStretch();
    layout->addLayout(buttons);
    m_pages->addWidget(m_editPage);

    connect(m_whoEdit, &QLineEdit::textChanged, this, &PauseDialog::validate);
    connect(m_whyEdit, &QLineEdit::textChanged, this, &PauseDialog::validate);
    connect(m_cancelButton, &QPushButton::clicked, this, &PauseDialog::reject);
    connect(m_continueButton, &QPushButton::clicked, this, &PauseDialog::showConfirmation);
    validate();
}

void PauseDialog::buildConfirmPage()
{
    m_confirmPage = new QWidget;
    m_confirmPage->setObjectName(QStringLiteral("confirmPage"));
    m_confirmLabel = wrappedLabel(QStringLiteral("confirmLabel"));

    m_backButton = new QPushButton(m_mode == Mode::Pause ? tr("Back") : tr("Cancel"));
    m_backButton->setObjectName(QStringLiteral("backButton"));
    m_confirmButton = new QPushButton(m_mode == Mode::Pause ? tr("Pause %1").arg(m_role)
                                                            : tr("Unpause %1").arg(m_role));
    m_confirmButton->setObjectName(QStringLiteral("confirmButton"));
    // Enter must never be the destructive choice: it presses Back/Cancel.
    m_confirmButton->setAutoDefault(false);

    auto buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_backButton);
    buttons->addWidget(m_confirmButton);
    auto layout = new QVBoxLayout(m_confirmPage);
    layout->addWidget(m_confirmLabel);
    layout->addStretch();
    layout->addLayout(buttons);
    m_pages->addWidget(m_confirmPage);

    connect(m_backButton, &QPushButton::clicked, this, [this] {
        if (m_mode == Mode::Pause)
            showEdit();
        else
            reject();
    });
    connect(m_confirmButton, &QPushButton::clicked, this, &PauseDialog::confirm);
}

QString PauseDialog::who() const
{
    return m_whoEdit->text().trimmed();
}

QString PauseDialog::why() const
{
    return m_whyEdit->text().trimmed();
}

void PauseDialog::setWho(const QString &who)
{
    m_whoEdit->setText(who);
}

void PauseDialog::setWhy(const QString &why)
{
    m_whyEdit->setText(why);
}

void PauseDialog::setCurrentPause(const QString &pausedBy, const QString &reason)
{
    m_pausedBy = pausedBy.trimmed();
    m_pauseReason = reason.trimmed();
    if (isConfirming())
        showConfirmation();
}

bool PauseDialog::isConfirming() const
{
    return m_pages->currentWidget() == m_confirmPage;
}

bool PauseDialog::canContinue() const
{
    // leader_pause() raises on an empty who or why; refuse here rather than there.
    return m_mode == Mode::Unpause || (!who().isEmpty() && !why().isEmpty());
}

void PauseDialog::validate()
{
    QString hint;
    if (who().isEmpty())
        hint = tr("Say who is pausing (recorded as paused_by).");
    else if (why().isEmpty())
        hint = tr("Give a reason (recorded as pause_reason).");
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

void PauseDialog::showConfirmation()
{
    if (!canContinue())
        return;
    QString text;
    const QString on = m_target.isEmpty() ? QString() : tr(" on %1").arg(m_target);
    if (m_mode == Mode::Pause) {
        text = tr("Pause %1%2?\n\nPaused by %3 because: %4\n\n%1 stops on every replica within "
                  "3 s and stays stopped until unpaused.")
                       .arg(m_role, on, who(), why());
    } else {
        text = tr("Unpause %1%2?").arg(m_role, on);
        if (!m_pausedBy.isEmpty() || !m_pauseReason.isEmpty())
            text += QLatin1String("\n\n")
                    + tr("Paused by %1 because: %2").arg(m_pausedBy, m_pauseReason);
        text += QLatin1String("\n\n")
                + tr("It becomes due at the next poll; not_before, if set, still applies.");
    }
    m_confirmLabel->setText(text);
    m_pages->setCurrentWidget(m_confirmPage);
    m_continueButton->setDefault(false);
    m_backButton->setDefault(true);
    m_backButton->setFocus();
}

void PauseDialog::confirm()
{
    if (!isConfirming() || !canContinue())
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
