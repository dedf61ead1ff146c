#include "stalebanner.h"

#include "core/timerule.h"
#include "models/plaintext.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QPolygonF>
#include <QTableView>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace leader::console {

namespace {

// Amber and near-black: 10.7:1 (WCAG asks 4.5:1 for text), and nothing else in the window is
// amber with dark text.
const QColor Band(0xff, 0xc1, 0x07);
const QColor Ink(0x1b, 0x1b, 0x1b);

// A warning sign in the text's colour, cut out in the band's: the style's own icon is yellow, and
// would vanish on amber.
QPixmap warningSign(int size, qreal pixelRatio)
{
    QPixmap pixmap(QSize(size, size) * pixelRatio);
    pixmap.setDevicePixelRatio(pixelRatio);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(Ink);
    const qreal s = size;
    painter.drawPolygon(
            QPolygonF{QPointF(s / 2, 0.5), QPointF(s - 0.5, s - 0.5), QPointF(0.5, s - 0.5)});
    painter.setPen(QPen(Band, std::max(1.5, s / 8), Qt::SolidLine, Qt::RoundCap));
    painter.drawLine(QPointF(s / 2, s * 0.4), QPointF(s / 2, s * 0.66));
    painter.drawPoint(QPointF(s / 2, s * 0.82));
    return pixmap;
}

} // namespace

QString outageDuration(qint64 seconds)
{
    const auto two = [](qint64 value) {
        return QStringLiteral("%1").arg(value, 2, 10, QLatin1Char('0'));
    };
    if (seconds < 3600)
        return QStringLiteral("%1:%2").arg(seconds / 60).arg(two(seconds % 60));
    return QStringLiteral("%1:%2:%3")
            .arg(seconds / 3600)
            .arg(two(seconds / 60 % 60), two(seconds % 60));
}

StaleBanner::StaleBanner(QTableView *table, const TimeRule *timeRule)
    : QWidget(table)
    , m_table(table)
    , m_timeRule(timeRule)
    , m_icon(new QLabel)
    , m_label(new QLabel)
    , m_ticker(new QTimer(this))
    , m_now([] { return QDateTime::currentDateTimeUtc(); })
{
    setObjectName(QStringLiteral("staleBanner"));
    QPalette colours = palette();
    for (const QPalette::ColorGroup group :
         {QPalette::Active, QPalette::Inactive, QPalette::Disabled}) {
        colours.setColor(group, QPalette::Window, Band);
        colours.setColor(group, QPalette::WindowText, Ink);
    }
    setPalette(colours);
    setAutoFillBackground(true);

    const int line = fontMetrics().height();
    m_icon->setPixmap(warningSign(line - 2, devicePixelRatioF()));
    m_label->setObjectName(QStringLiteral("staleText"));
    m_label->setTextFormat(Qt::PlainText); // it quotes the server's error
    m_label->setWordWrap(false);
    // Elided to the width there is (elide()), never widening the banner past the table.
    m_label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    QFont bold = m_label->font();
    bold.setBold(true);
    m_label->setFont(bold);
    m_label->installEventFilter(this);

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 1, 6, 1);
    layout->setSpacing(6);
    layout->addWidget(m_icon);
    layout->addWidget(m_label, 1);

    m_ticker->setInterval(1000);
    connect(m_ticker, &QTimer::timeout, this, &StaleBanner::refresh);
    m_table->installEventFilter(this);
    m_table->horizontalHeader()->installEventFilter(this);
    hide();
}

StaleBanner::~StaleBanner() = default;

void StaleBanner::setStale(bool stale, const QDateTime &asOf)
{
    m_stale = stale;
    m_asOf = asOf;
    if (stale)
        m_ticker->start();
    else
        m_ticker->stop();
    refresh();
}

void StaleBanner::setReason(const QString &why, const QString &detail)
{
    m_why = why;
    m_detail = detail;
    if (m_stale)
        refresh();
}

void StaleBanner::setClock(Clock now)
{
    m_now = std::move(now);
    if (m_stale)
        refresh();
}

bool StaleBanner::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_label) {
        if (event->type() == QEvent::Resize)
            elide();
    } else if (event->type() == QEvent::Resize || event->type() == QEvent::Show
               || event->type() == QEvent::Hide) {
        place(); // the table or its header moved: stay over the header
    }
    return QWidget::eventFilter(watched, event);
}

void StaleBanner::refresh()
{
    if (!m_stale) {
        hide();
        return;
    }
    const qint64 seconds = std::max<qint64>(0, m_asOf.secsTo(m_now()));
    const TimeZoneMode zone = m_timeRule ? m_timeRule->mode() : TimeZoneMode::Local;
    m_text = tr("Stale for %1 — last good poll %2 (%3)")
                     .arg(outageDuration(seconds), TimeRule::clock(m_asOf, zone),
                          TimeRule::zoneName(zone));
    if (!m_why.isEmpty())
        m_text += QStringLiteral("; ") + m_why;
    QString tip = tr("Not live: the table shows the rows received at %1.")
                          .arg(TimeRule::full(m_asOf, zone));
    if (!m_detail.isEmpty())
        tip += QLatin1Char('\n') + m_detail;
    setToolTip(plainToolTip(tip));
    setAccessibleName(m_text);
    elide();
    if (isHidden()) {
        place();
        show();
        raise();
    }
}

void StaleBanner::place()
{
    // Over the header from frame to frame (the corner above the scrollbar too); as tall as the
    // header, so it hides no row, unless one line needs more.
    const QHeaderView *header = m_table->horizontalHeader();
    const int frame = m_table->frameWidth();
    const int height = std::max(header->isVisible() ? header->height() : 0, sizeHint().height());
    setGeometry(frame, frame, m_table->width() - 2 * frame, height);
}

void StaleBanner::elide()
{
    m_label->setText(m_label->fontMetrics().elidedText(m_text, Qt::ElideRight,
                                                       m_label->contentsRect().width()));
}

} // namespace leader::console
