#include "pausehistory.h"

#include "core/timerule.h"
#include "models/pauselogfilter.h"
#include "models/pauselogmodel.h"
#include "models/plaintext.h"
#include "tableview.h"
#include "thresholdsdialog.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace leader::console {

PauseHistory::PauseHistory(const TimeRule *timeRule, QWidget *parent)
    : QWidget(parent)
    , m_timeRule(timeRule)
    , m_model(new PauseLogModel(this))
    , m_filter(new PauseLogFilter(this))
    , m_role(new QComboBox)
    , m_since(new QComboBox)
    , m_text(new QLineEdit)
    , m_state(new QLabel)
    , m_stack(new QStackedWidget)
    , m_unavailable(new QLabel)
{
    setObjectName(QStringLiteral("pauseHistory"));
    // Both quote the server's errors.
    m_state->setTextFormat(Qt::PlainText);
    m_unavailable->setTextFormat(Qt::PlainText);
    m_model->setObjectName(QStringLiteral("pauseLogModel"));
    m_model->setTimeRule(timeRule);
    m_filter->setSourceModel(m_model);

    m_role->setObjectName(QStringLiteral("pauseHistoryRole"));
    m_role->addItem(tr("All roles"), QString());
    for (const QString &role : ThresholdsDialog::roles())
        m_role->addItem(role, role);
    connect(m_role, &QComboBox::currentIndexChanged, this,
            [this] { m_filter->setRole(m_role->currentData().toString()); });

    m_since->setObjectName(QStringLiteral("pauseHistorySince"));
    m_since->addItem(tr("Last hour"), QVariant::fromValue(PauseLogSince::Hour));
    m_since->addItem(tr("Last 24 hours"), QVariant::fromValue(PauseLogSince::Day));
    m_since->addItem(tr("Last 7 days"), QVariant::fromValue(PauseLogSince::Week));
    m_since->addItem(tr("All"), QVariant::fromValue(PauseLogSince::All));
    m_since->setCurrentIndex(2);
    connect(m_since, &QComboBox::currentIndexChanged, this, &PauseHistory::refresh);

    m_text->setObjectName(QStringLiteral("pauseHistoryFilter"));
    m_text->setPlaceholderText(tr("Filter: text in any column (login, by, reason, …)"));
    m_text->setClearButtonEnabled(true);
    connect(m_text, &QLineEdit::textChanged, m_filter, &PauseLogFilter::setText);

    auto *refreshButton = new QPushButton(tr("Refresh"));
    refreshButton->setObjectName(QStringLiteral("pauseHistoryRefresh"));
    connect(refreshButton, &QPushButton::clicked, this, &PauseHistory::refresh);
    m_export = new QPushButton(tr("Export CSV…"));
    m_export->setObjectName(QStringLiteral("pauseHistoryExport"));
    connect(m_export, &QPushButton::clicked, this, &PauseHistory::exportRequested);

    auto *controls = new QHBoxLayout;
    controls->addWidget(m_role);
    controls->addWidget(m_since);
    controls->addWidget(m_text, 1);
    controls->addWidget(refreshButton);
    controls->addWidget(m_export);

    QTableView *table = makeTableView(QStringLiteral("pauseHistoryView"), m_filter);
    table->setWordWrap(false);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    m_unavailable->setObjectName(QStringLiteral("pauseHistoryUnavailable"));
    m_unavailable->setWordWrap(true);
    m_unavailable->setAlignment(Qt::AlignCenter);
    m_stack->addWidget(table);
    m_stack->addWidget(m_unavailable);
    m_state->setObjectName(QStringLiteral("pauseHistoryState"));

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_stack, 1);
    layout->addWidget(m_state);
}

PauseHistory::~PauseHistory() = default;

PauseLogSince PauseHistory::since() const
{
    return m_since->currentData().value<PauseLogSince>();
}

void PauseHistory::setRole(const QString &role)
{
    const int index = m_role->findData(role);
    m_role->setCurrentIndex(index < 0 ? 0 : index);
}

void PauseHistory::refresh()
{
    m_state->setText(tr("Reading the pause log…"));
    Q_EMIT readRequested(since());
}

void PauseHistory::setResult(const PauseLogResult &result)
{
    if (!result.unavailable.isEmpty()) {
        // The ADR's schema alone: the rest of the console works, so this is a line, not an
        // error.
        QString line = result.unavailable;
        line[0] = line[0].toUpper();
        m_unavailable->setText(line);
        m_export->setEnabled(false);
        m_export->setToolTip(plainToolTip(line));
        m_stack->setCurrentWidget(m_unavailable);
        m_model->setEntries({});
        m_state->clear();
        return;
    }
    m_stack->setCurrentIndex(0);
    m_export->setEnabled(true);
    m_export->setToolTip({});
    const QString at = TimeRule::clock(QDateTime::currentDateTimeUtc(),
                                       m_timeRule ? m_timeRule->mode() : TimeZoneMode::Local);
    if (!result.error.isEmpty()) {
        // The rows of the last good read stay: older, but still what the log said.
        m_state->setText(tr("Could not read the pause log at %1: %2").arg(at, result.error));
        return;
    }
    m_model->setEntries(result.entries);
    const qsizetype count = result.entries.size();
    if (result.truncated)
        m_state->setText(tr("The newest %1 entries of the period, read at %2; older ones are not "
                            "shown")
                                 .arg(count)
                                 .arg(at));
    else
        m_state->setText((count == 1 ? tr("1 entry") : tr("%1 entries").arg(count))
                         + tr(", read at %1").arg(at));
}

void PauseHistory::onActionFinished(PauseAction action, bool ok)
{
    // Hidden, it reads again when shown.
    if (ok && isVisible() && (action == PauseAction::Pause || action == PauseAction::Unpause))
        refresh();
}

void PauseHistory::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    refresh();
}

} // namespace leader::console
