#include "productionguard.h"

#include "pausecontroller.h"
#include "stackedwidgets.h"

#include <QAction>
#include <QColor>
#include <QFont>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>

#include <cmath>

namespace leader::console {

namespace {

// Black or white, whichever contrasts more with the band (WCAG relative luminance: above 0.179
// black text has the higher contrast ratio).
QColor textOn(const QColor &background)
{
    const auto linear = [](float channel) {
        return channel <= 0.04045f ? channel / 12.92f : std::pow((channel + 0.055f) / 1.055f, 2.4f);
    };
    const float luminance = 0.2126f * linear(background.redF())
                            + 0.7152f * linear(background.greenF())
                            + 0.0722f * linear(background.blueF());
    return luminance > 0.179f ? Qt::black : Qt::white;
}

} // namespace

ProductionGuard::ProductionGuard(QWidget *window, PauseController *pauses)
    : QObject(window)
    , m_window(window)
    , m_pauses(pauses)
    , m_unlock(new QAction(tr("Unlock &writes for this window…"), this))
{
    m_unlock->setObjectName(QStringLiteral("unlockWritesAction"));
    connect(m_unlock, &QAction::triggered, this, [this] {
        if (m_locked)
            askToUnlock();
        else
            setLocked(isProduction());
    });
    setProfile({});
}

ProductionGuard::~ProductionGuard() = default;

QWidget *ProductionGuard::wrap(QWidget *central)
{
    m_band = new QLabel;
    m_band->setObjectName(QStringLiteral("environmentBand"));
    m_band->setAlignment(Qt::AlignCenter);
    m_band->setAutoFillBackground(true);
    m_band->setContentsMargins(6, 4, 6, 4);
    QFont font = m_band->font();
    font.setBold(true);
    m_band->setFont(font);
    QWidget *container = stackedWidgets({m_band, central});
    updateBand();
    return container;
}

void ProductionGuard::setProfile(const ConnectionProfile &profile)
{
    m_profile = profile;
    m_locked = !isProduction(); // setLocked announces the change
    setLocked(isProduction());
}

void ProductionGuard::askToUnlock()
{
    auto *box = new QMessageBox(
            QMessageBox::Warning, tr("Unlock writes?"),
            tr("%1 is a production database. Unlock pause and unpause for this window? Each one "
               "still asks for confirmation with the roles' names typed; connecting again locks "
               "writes again.")
                    .arg(m_profile.describe()),
            QMessageBox::Cancel, m_window);
    box->setObjectName(QStringLiteral("unlockWritesBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton *unlock = box->addButton(tr("Unlock writes"), QMessageBox::AcceptRole);
    unlock->setObjectName(QStringLiteral("unlockButton"));
    box->setDefaultButton(QMessageBox::Cancel);
    connect(box, &QMessageBox::finished, this, [this, box, unlock] {
        if (box->clickedButton() == unlock)
            setLocked(false);
    });
    box->open();
}

void ProductionGuard::setLocked(bool locked)
{
    const bool changed = locked != m_locked;
    m_locked = locked;
    m_unlock->setEnabled(isProduction());
    m_unlock->setText(locked || !isProduction() ? tr("Unlock &writes for this window…")
                                                : tr("Lock &writes again"));
    m_unlock->setToolTip(isProduction() ? QString()
                                        : tr("Only a profile whose environment is production "
                                             "locks writes"));
    m_pauses->setProduction(isProduction(), locked);
    updateBand();
    Q_EMIT writesLockedChanged();
    if (changed && isProduction())
        Q_EMIT logged(locked ? tr("writes locked on production %1").arg(m_profile.describe())
                             : tr("writes unlocked for this window on production %1")
                                       .arg(m_profile.describe()));
}

void ProductionGuard::updateBand()
{
    if (!m_band)
        return;
    const QString environment = m_profile.environment.trimmed();
    m_band->setVisible(!environment.isEmpty());
    if (environment.isEmpty())
        return;
    QString text = environment.toUpper() + QStringLiteral(" — ") + m_profile.describe();
    if (isProduction())
        text += m_locked ? tr(" — writes locked (Role → Unlock writes for this window)")
                         : tr(" — writes unlocked for this window");
    m_band->setTextFormat(Qt::PlainText);
    m_band->setText(text);
    const QColor colour(m_profile.bandColour());
    QPalette palette = m_band->palette();
    palette.setColor(QPalette::Window, colour);
    palette.setColor(QPalette::WindowText, textOn(colour));
    m_band->setPalette(palette);
}

} // namespace leader::console
