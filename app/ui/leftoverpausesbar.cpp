#include "leftoverpausesbar.h"

#include "core/consolesession.h"
#include "core/leasefacts.h"
#include "models/plaintext.h"
#include "models/tones.h"
#include "stackedwidgets.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>

namespace leader::console {

LeftoverPausesBar::LeftoverPausesBar(ConsoleSession *session, QWidget *parent)
    : QFrame(parent)
    , m_session(session)
    , m_label(new QLabel)
    , m_unpause(new QPushButton(tr("Unpause all")))
    , m_keep(new QPushButton(tr("Keep paused")))
{
    setObjectName(QStringLiteral("leftoverPausesBar"));
    m_label->setObjectName(QStringLiteral("leftoverPausesText"));
    m_label->setTextFormat(Qt::PlainText); // who paused and why are anyone's words
    m_label->setForegroundRole(QPalette::Text);
    m_label->setWordWrap(true);
    m_unpause->setObjectName(QStringLiteral("unpauseLeftoverButton"));
    m_unpause->setToolTip(tr("Unpause these roles now, recorded as yours"));
    m_keep->setObjectName(QStringLiteral("keepLeftoverButton"));
    m_keep->setToolTip(tr("Leave them paused and hide this line"));
    connect(m_unpause, &QPushButton::clicked, this, &LeftoverPausesBar::unpauseAll);
    connect(m_keep, &QPushButton::clicked, this, [this] { setPauses({}); });
    connect(session, &ConsoleSession::demoPausedFromLastRun, this, &LeftoverPausesBar::setPauses);
    connect(session, &ConsoleSession::snapshot, this, &LeftoverPausesBar::onSnapshot);
    connect(session, &ConsoleSession::actionFinished, this, &LeftoverPausesBar::onActionFinished);
    connect(session, &ConsoleSession::demoStopped, this, [this] { setPauses({}); });
    connect(session, &ConsoleSession::privilegesChanged, this, [this](const Privileges &granted) {
        m_canUnpause = granted.canUnpause;
        updateLine();
    });

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 2, 4, 2);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_unpause);
    layout->addWidget(m_keep);
    hide();
}

LeftoverPausesBar::~LeftoverPausesBar() = default;

QWidget *LeftoverPausesBar::wrap(ConsoleSession *session, QWidget *central)
{
    return stackedWidgets({new LeftoverPausesBar(session), central}, central);
}

QStringList LeftoverPausesBar::roles() const
{
    QStringList roles;
    for (const LeftoverPause &pause : m_pauses)
        roles.append(pause.role);
    return roles;
}

QString LeftoverPausesBar::text() const
{
    return m_pauses.isEmpty() ? QString() : m_label->text();
}

void LeftoverPausesBar::setPauses(const QList<LeftoverPause> &pauses)
{
    m_pauses = pauses;
    m_unpausing.clear();
    m_error.clear();
    updateLine();
}

// Roles unpaused meanwhile, here or from anywhere else, leave the line; none left, it goes.
void LeftoverPausesBar::onSnapshot(const StatusSnapshot &snapshot)
{
    if (m_pauses.isEmpty())
        return;
    const qsizetype before = m_pauses.size();
    m_pauses.removeIf([&](const LeftoverPause &pause) {
        for (const RoleStatus &status : snapshot.roles) {
            if (status.role == pause.role)
                return !status.pausedAt.isValid();
        }
        return false;
    });
    if (m_pauses.size() != before)
        updateLine();
}

void LeftoverPausesBar::onActionFinished(const ActionResult &result)
{
    if (m_unpausing.isEmpty() || result.action != PauseAction::Unpause
        || result.roles != m_unpausing) {
        return;
    }
    m_unpausing.clear();
    if (result.ok)
        m_pauses.clear();
    else
        m_error = result.error;
    updateLine();
}

void LeftoverPausesBar::unpauseAll()
{
    m_unpausing = roles();
    m_error.clear();
    updateLine();
    m_session->unpause(m_unpausing, defaultWho(),
                       tr("paused in the demo's last run, unpaused at its start"));
}

void LeftoverPausesBar::updateLine()
{
    const QString names = roles().join(QStringLiteral(", "));
    if (!m_error.isEmpty())
        m_label->setText(tr("Could not unpause %1: %2 — try again, or unpause them from the status "
                            "table.")
                                 .arg(names, m_error));
    else if (!m_unpausing.isEmpty())
        m_label->setText(tr("Unpausing %1…").arg(names));
    else
        m_label->setText(tr("Still paused from the demo's last run: %1 — unpause them to let the "
                            "demo run them.")
                                 .arg(names));
    QStringList details;
    for (const LeftoverPause &pause : m_pauses) {
        QString detail = tr("%1: paused %2 by %3")
                                 .arg(pause.role, pause.pausedAt.toString(Qt::ISODate),
                                      pause.pausedBy.isEmpty() ? tr("someone") : pause.pausedBy);
        if (!pause.reason.isEmpty())
            detail += QStringLiteral(": ") + pause.reason;
        if (pause.pausedUntil.isValid())
            detail += tr(" (until %1)").arg(pause.pausedUntil.toString(Qt::ISODate));
        details.append(detail);
    }
    m_label->setToolTip(plainToolTip(details.join(QLatin1Char('\n'))));
    m_unpause->setEnabled(m_unpausing.isEmpty() && m_canUnpause);
    m_keep->setEnabled(m_unpausing.isEmpty());
    setVisible(!m_pauses.isEmpty());
}

void LeftoverPausesBar::paintEvent(QPaintEvent *event)
{
    QPainter painter(this);
    painter.fillRect(rect(), toneFill(Tone::Info, palette()));
    painter.end();
    QFrame::paintEvent(event);
}

} // namespace leader::console
