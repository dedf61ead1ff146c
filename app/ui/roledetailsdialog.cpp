#include "roledetailsdialog.h"

#include "models/statusmodel.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace leader::console {

RoleDetailsDialog::RoleDetailsDialog(StatusModel *model, const QString &role, QWidget *parent)
    : QDialog(parent)
    , m_model(model)
    , m_role(role)
{
    setObjectName(QStringLiteral("roleDetailsDialog"));
    setWindowTitle(tr("Tick details: %1").arg(role));
    m_form = new QFormLayout;
    m_state = addField(QStringLiteral("stateValue"), tr("State"));
    m_leaseHolder = addField(QStringLiteral("leaseHolderValue"), tr("Held by"));
    m_outcome = addField(QStringLiteral("outcomeValue"), tr("Last tick"));
    m_took = addField(QStringLiteral("tookValue"), tr("Took"));
    m_ended = addField(QStringLiteral("endedValue"), tr("Ended (UTC)"));
    m_holder = addField(QStringLiteral("holderValue"), tr("On"));
    m_step = addField(QStringLiteral("failedStepValue"), tr("Failed step"));
    m_error = addField(QStringLiteral("errorValue"), tr("Error"));
    m_hour = addField(QStringLiteral("hourValue"), tr("Last hour"));
    m_backlog = addField(QStringLiteral("backlogValue"), tr("Backlog"));
    m_oldest = addField(QStringLiteral("backlogOldestValue"), tr("Oldest waiting"));
    m_backlogError = addField(QStringLiteral("backlogErrorValue"), tr("Backlog error"));
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("detailsNote"));
    m_note->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(m_form);
    layout->addWidget(m_note);
    layout->addWidget(buttons);

    // Every poll that touches the rows may touch this one: refreshing is a few label texts.
    connect(m_model, &QAbstractItemModel::dataChanged, this, &RoleDetailsDialog::refresh);
    connect(m_model, &QAbstractItemModel::modelReset, this, &RoleDetailsDialog::refresh);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &RoleDetailsDialog::refresh);
    refresh();
}

RoleDetailsDialog::~RoleDetailsDialog() = default;

QLabel *RoleDetailsDialog::addField(const QString &name, const QString &label)
{
    auto *value = new QLabel;
    value->setObjectName(name);
    // Database text: shown as written, never as rich text, and selectable to paste into a ticket.
    value->setTextFormat(Qt::PlainText);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    value->setWordWrap(true);
    m_form->addRow(label, value);
    return value;
}

void RoleDetailsDialog::refresh()
{
    const std::optional<RoleStatus> status = m_model->statusFor(m_role);
    if (!status) {
        for (QLabel *label : {m_state, m_leaseHolder, m_outcome, m_took, m_ended, m_holder, m_step,
                              m_error, m_hour, m_backlog, m_oldest, m_backlogError})
            label->clear();
        m_hour->setToolTip({});
        m_note->setText(tr("%1 is not among the roles the database reports now.").arg(m_role));
        return;
    }
    const int row = m_model->rowOf(m_role);
    const auto cell = [this, row](int column) {
        return m_model->index(row, column).data().toString();
    };
    m_state->setText(cell(StatusModel::State));
    if (status->holderId.isEmpty())
        m_leaseHolder->setText(tr("nobody"));
    else if (status->holderOutside == true)
        m_leaseHolder->setText(StatusModel::outsideHolderText(*status));
    else
        m_leaseHolder->setText(cell(StatusModel::Holder));
    m_outcome->setText(StatusModel::outcomeText(*status));
    m_took->setText(cell(StatusModel::Took));
    m_ended->setText(!status->lastOutcome
                             ? QString()
                             : status->lastEndedAt.toUTC().toString(Qt::ISODateWithMs));
    const QString holder = m_model->holderNames().value(status->lastHolder, status->lastHolder);
    m_holder->setText(holder);
    m_step->setText(status->lastFailedStep.isEmpty() ? tr("none") : status->lastFailedStep);
    m_error->setText(status->lastError.isEmpty() ? tr("none") : status->lastError);
    const bool oursOnly = status->countsOursOnly == true;
    m_hour->setText(StatusModel::hourText(*status));
    m_hour->setToolTip(oursOnly ? StatusModel::oursOnlyText() : QString());
    showBacklog(*status);
    if (!status->lastHour)
        m_note->setText(tr("This database does not record ticks: add extension 0184 with "
                           "leaderctl migrate."));
    else if (!status->lastOutcome && oursOnly)
        m_note->setText(tr("No tick of %1 recorded yet by our replicas. %2")
                                .arg(m_role, StatusModel::oursOnlyText()));
    else if (!status->lastOutcome)
        m_note->setText(tr("No tick of %1 recorded yet.").arg(m_role));
    else
        m_note->clear();
}

void RoleDetailsDialog::showBacklog(const RoleStatus &status)
{
    if (!status.backlog) {
        const QString readError = m_model->snapshot().backlogError;
        m_backlog->setText(readError.isEmpty() ? tr("none reported (no source registered, or no "
                                                    "extension 0186)")
                                               : tr("not read"));
        m_oldest->clear();
        m_backlogError->setText(readError.isEmpty() ? tr("none") : readError);
        return;
    }
    const RoleBacklog &backlog = *status.backlog;
    if (!backlog.pending)
        m_backlog->setText(tr("unknown %1").arg(backlog.what));
    else
        m_backlog->setText(tr("%1 %2").arg(*backlog.pending).arg(backlog.what));
    m_oldest->setText(backlog.oldestAgeSeconds
                              ? StatusModel::formatSeconds(*backlog.oldestAgeSeconds)
                              : QString());
    m_backlogError->setText(backlog.error.isEmpty() ? tr("none") : backlog.error);
}

} // namespace leader::console
