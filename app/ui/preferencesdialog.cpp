#include "ui/preferencesdialog.h"

#include "ui/dialogfit.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace leader::console {

PreferencesDialog::PreferencesDialog(QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("PreferencesDialog"));
    setWindowTitle(tr("Preferences"));

    m_keepBox = new QCheckBox(tr("Keep each database's status history on disk"));
    m_keepBox->setObjectName(QStringLiteral("keepHistory"));
    m_keepBox->setToolTip(tr("The console shows the last 24 h at once when it is opened again."));

    m_retentionSpin = new QSpinBox;
    m_retentionSpin->setObjectName(QStringLiteral("retentionDays"));
    m_retentionSpin->setRange(1, 365);
    m_retentionSpin->setSuffix(tr(" days"));

    m_sizeSpin = new QSpinBox;
    m_sizeSpin->setObjectName(QStringLiteral("maxMegabytes"));
    m_sizeSpin->setRange(1, 100 * 1024);
    m_sizeSpin->setSuffix(tr(" MB"));
    m_sizeSpin->setToolTip(tr("Per database. Over it, the oldest data is removed first."));

    m_whereLabel = new QLabel(tr("Kept in %1. Changes apply to databases opened from now on.")
                                      .arg(QDir::toNativeSeparators(HistoryStore::directory())));
    m_whereLabel->setWordWrap(true);
    m_whereLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto form = new QFormLayout;
    form->addRow(m_keepBox);
    form->addRow(tr("Keep for:"), m_retentionSpin);
    form->addRow(tr("Size limit:"), m_sizeSpin);

    auto buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel
                                        | QDialogButtonBox::RestoreDefaults);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this,
            [this] { setHistorySettings(HistorySettings{}); });
    connect(m_keepBox, &QCheckBox::toggled, this, &PreferencesDialog::updateEnabled);

    auto layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_whereLabel);
    layout->addWidget(buttons);
    setHistorySettings(HistorySettings{});
    fitToContents(this);
}

PreferencesDialog::~PreferencesDialog() = default;

void PreferencesDialog::setHistorySettings(const HistorySettings &settings)
{
    m_keepBox->setChecked(settings.keep);
    m_retentionSpin->setValue(settings.retentionDays);
    m_sizeSpin->setValue(settings.maxMegabytes);
    updateEnabled();
}

HistorySettings PreferencesDialog::historySettings() const
{
    HistorySettings settings;
    settings.keep = m_keepBox->isChecked();
    settings.retentionDays = m_retentionSpin->value();
    settings.maxMegabytes = m_sizeSpin->value();
    return settings;
}

void PreferencesDialog::updateEnabled()
{
    m_retentionSpin->setEnabled(m_keepBox->isChecked());
    m_sizeSpin->setEnabled(m_keepBox->isChecked());
}

} // namespace leader::console
