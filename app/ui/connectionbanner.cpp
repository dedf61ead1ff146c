#include "connectionbanner.h"

#include "models/plaintext.h"
#include "models/tones.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QTimer>

namespace leader::console {

ConnectionBanner::ConnectionBanner(QWidget *parent)
    : QFrame(parent)
    , m_label(new QLabel)
    , m_retry(new QPushButton(tr("Retry &now")))
    , m_edit(new QPushButton(tr("&Edit…")))
    , m_tick(new QTimer(this))
{
    setObjectName(QStringLiteral("connectionBanner"));
    m_label->setObjectName(QStringLiteral("connectionBannerText"));
    m_label->setTextFormat(Qt::PlainText);      // it quotes the server's error
    m_label->setForegroundRole(QPalette::Text); // what toneFill keeps legible
    // libpq's reasons are long: elided to the width there is, never widening the window.
    m_label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_label->installEventFilter(this);
    QFont bold = m_label->font();
    bold.setBold(true);
    m_label->setFont(bold);
    m_retry->setObjectName(QStringLiteral("retryNowButton"));
    m_retry->setToolTip(tr("Try to connect now instead of waiting for the next attempt"));
    m_edit->setObjectName(QStringLiteral("editConnectionButton"));
    m_edit->setToolTip(tr("Correct the host, login or password in the connection dialog"));
    m_tick->setSingleShot(true);
    connect(m_tick, &QTimer::timeout, this, &ConnectionBanner::updateLine);
    connect(m_retry, &QPushButton::clicked, this, [this] {
        m_attempting = true;
        updateLine();
        Q_EMIT retryRequested();
    });
    connect(m_edit, &QPushButton::clicked, this, &ConnectionBanner::editRequested);

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 2, 4, 2);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_retry);
    layout->addWidget(m_edit);
    hide();
}

ConnectionBanner::~ConnectionBanner() = default;

void ConnectionBanner::setConnectionState(ConnectionState state, const QString &message)
{
    switch (state) {
    case ConnectionState::Failed:
        m_failing = true;
        m_attempting = false;
        m_retryScheduled = false;        // setRetryIn follows when the poller schedules one
        m_reason = message.simplified(); // libpq's come on two lines
        break;
    case ConnectionState::Connecting:
        if (!m_failing)
            return; // a first attempt: the status bar says it is connecting
        m_attempting = true;
        m_retryScheduled = false;
        break;
    case ConnectionState::Connected:
    case ConnectionState::Reconnected:
    case ConnectionState::Disconnected:
        if (!m_failing)
            return;
        m_failing = false;
        m_attempting = false;
        m_retryScheduled = false;
        m_reason.clear();
        break;
    }
    updateLine();
}

void ConnectionBanner::setRetryIn(int milliseconds)
{
    if (!m_failing)
        return;
    m_attempting = false;
    m_retryScheduled = true;
    m_retryAt = QDeadlineTimer(milliseconds);
    updateLine();
}

int ConnectionBanner::secondsToRetry() const
{
    if (!m_failing || m_attempting || !m_retryScheduled)
        return -1;
    return int((m_retryAt.remainingTime() + 999) / 1000);
}

void ConnectionBanner::updateLine()
{
    m_tick->stop();
    QString line;
    if (m_failing) {
        const int seconds = secondsToRetry();
        if (m_attempting || seconds == 0) {
            line = tr("Cannot connect — retrying now: %1").arg(m_reason);
        } else if (seconds > 0) {
            line = tr("Cannot connect — retrying in %n s: %1", nullptr, seconds).arg(m_reason);
            // Again when the second shown changes.
            m_tick->start(int(m_retryAt.remainingTime() - qint64(seconds - 1) * 1000));
        } else {
            line = tr("Cannot connect: %1").arg(m_reason);
        }
    }
    m_retry->setEnabled(m_failing && !m_attempting);
    m_label->setToolTip(plainToolTip(m_reason));
    setVisible(m_failing);
    if (line == m_line)
        return;
    m_line = line;
    elide();
    Q_EMIT changed();
}

void ConnectionBanner::elide()
{
    m_label->setText(m_label->fontMetrics().elidedText(m_line, Qt::ElideRight, m_label->width()));
}

bool ConnectionBanner::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_label && event->type() == QEvent::Resize)
        elide();
    return QFrame::eventFilter(watched, event);
}

void ConnectionBanner::paintEvent(QPaintEvent *event)
{
    QPainter painter(this);
    painter.fillRect(rect(), toneFill(Tone::Warning, palette()));
    painter.end();
    QFrame::paintEvent(event);
}

} // namespace leader::console
