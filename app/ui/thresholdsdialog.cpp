#include "ui/thresholdsdialog.h"

#include "core/leasefacts.h"
#include "ui/dialogfit.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace leader::console {

namespace {

enum Column { RoleColumn, WarnColumn, AlertColumn, ColumnCount };

QDoubleSpinBox *makeSpin(const QString &objectName, const QString &toolTip)
{
    auto spin = new QDoubleSpinBox;
    spin->setObjectName(objectName);
    spin->setRange(0.1, ThresholdsDialog::MaxSeconds);
    spin->setDecimals(1);
    spin->setSingleStep(1.0);
    spin->setSuffix(QStringLiteral(" s"));
    spin->setToolTip(toolTip);
    return spin;
}

} // namespace

QStringList ThresholdsDialog::roles()
{
    return leaseRoles();
}

ThresholdsDialog::ThresholdsDialog(QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("ThresholdsDialog"));
    setWindowTitle(tr("Tick age thresholds"));

    auto intro = new QLabel(tr("How old a role's last completed tick may get before the console "
                               "warns, then alerts. The alert must be later than the warning."));
    intro->setWordWrap(true);

    const QStringList names = roles();
    m_table = new QTableWidget(int(names.size()), ColumnCount);
    m_table->setObjectName(QStringLiteral("thresholdsTable"));
    m_table->setHorizontalHeaderLabels({tr("Role"), tr("Warn after"), tr("Alert after")});
    m_table->verticalHeader()->hide();
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int row = 0; row < names.size(); ++row) {
        const QString &role = names.at(row);
        auto item = new QTableWidgetItem(role);
        item->setFlags(Qt::ItemIsEnabled);
        m_table->setItem(row, RoleColumn, item);
        auto warn = makeSpin(role + QStringLiteral(".warn"),
                             tr("Warn when %1's last tick is older than this.").arg(role));
        auto alert = makeSpin(role + QStringLiteral(".alert"),
                              tr("Alert when %1's last tick is older than this.").arg(role));
        m_table->setCellWidget(row, WarnColumn, warn);
        m_table->setCellWidget(row, AlertColumn, alert);
        connect(warn, &QDoubleSpinBox::valueChanged, this, &ThresholdsDialog::validate);
        connect(alert, &QDoubleSpinBox::valueChanged, this, &ThresholdsDialog::validate);
    }
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);

    m_hintLabel = new QLabel;
    m_hintLabel->setObjectName(QStringLiteral("hintLabel"));
    m_hintLabel->setWordWrap(true);
    setAlertText(m_hintLabel);
    m_hintLabel->hide();

    auto buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_okButton = buttons->button(QDialogButtonBox::Ok);
    m_okButton->setObjectName(QStringLiteral("okButton"));
    buttons->button(QDialogButtonBox::Cancel)->setObjectName(QStringLiteral("cancelButton"));
    m_restoreButton = buttons->addButton(tr("Restore defaults"), QDialogButtonBox::ResetRole);
    m_restoreButton->setObjectName(QStringLiteral("restoreDefaultsButton"));
    m_restoreButton->setEnabled(false);

    auto layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_table);
    layout->addWidget(m_hintLabel);
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::accepted, this, &ThresholdsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &ThresholdsDialog::reject);
    connect(m_restoreButton, &QPushButton::clicked, this, &ThresholdsDialog::restoreDefaults);
    validate();
    fitToContents(this);
}

ThresholdsDialog::~ThresholdsDialog() = default;

QDoubleSpinBox *ThresholdsDialog::warnSpin(const QString &role) const
{
    const int row = int(roles().indexOf(role));
    return row < 0 ? nullptr : qobject_cast<QDoubleSpinBox *>(m_table->cellWidget(row, WarnColumn));
}

QDoubleSpinBox *ThresholdsDialog::alertSpin(const QString &role) const
{
    const int row = int(roles().indexOf(role));
    return row < 0 ? nullptr
                   : qobject_cast<QDoubleSpinBox *>(m_table->cellWidget(row, AlertColumn));
}

void ThresholdsDialog::setThresholds(const Thresholds &thresholds)
{
    for (auto it = thresholds.cbegin(); it != thresholds.cend(); ++it) {
        QDoubleSpinBox *warn = warnSpin(it.key());
        QDoubleSpinBox *alert = alertSpin(it.key());
        if (!warn || !alert)
            continue;
        warn->setValue(it.value().first);
        alert->setValue(it.value().second);
    }
    validate();
}

ThresholdsDialog::Thresholds ThresholdsDialog::thresholds() const
{
    Thresholds result;
    const QStringList names = roles();
    for (const QString &role : names)
        result.insert(role, {warnSpin(role)->value(), alertSpin(role)->value()});
    return result;
}

void ThresholdsDialog::setDefaults(const Thresholds &defaults)
{
    m_defaults = defaults;
    m_restoreButton->setEnabled(!m_defaults.isEmpty());
}

void ThresholdsDialog::restoreDefaults()
{
    setThresholds(m_defaults);
}

QString ThresholdsDialog::validationMessage() const
{
    const QStringList names = roles();
    for (const QString &role : names) {
        if (alertSpin(role)->value() <= warnSpin(role)->value())
            return tr("%1: the alert must come after the warning (alert > warn).").arg(role);
    }
    return {};
}

bool ThresholdsDialog::isValid() const
{
    return validationMessage().isEmpty();
}

void ThresholdsDialog::validate()
{
    const QString problem = validationMessage();
    m_hintLabel->setText(problem);
    m_hintLabel->setVisible(!problem.isEmpty());
    m_okButton->setEnabled(problem.isEmpty());
}

void ThresholdsDialog::accept()
{
    if (isValid())
        QDialog::accept();
}

} // namespace leader::console
