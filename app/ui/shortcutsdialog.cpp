#include "shortcutsdialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenuBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace leader::console {

namespace {

QString plainText(QString text)
{
    // "&Pause…" reads "Pause"; a literal "&&" stays one ampersand.
    text.replace(QLatin1String("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QLatin1Char('\x01'), QLatin1Char('&'));
    text.remove(QChar(0x2026));
    if (text.endsWith(QLatin1String("...")))
        text.chop(3);
    return text.trimmed();
}

} // namespace

QList<ShortcutLine> shortcutsOf(const QWidget *window)
{
    QList<ShortcutLine> lines;
    const QList<QAction *> actions = window->findChildren<QAction *>();
    for (const QAction *action : actions) {
        if (action->shortcuts().isEmpty() || action->text().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence &sequence : action->shortcuts())
            keys << sequence.toString(QKeySequence::NativeText);
        lines.append({keys.join(QLatin1String(", ")), plainText(action->text())});
    }
    // The menu bar's own menus open with Alt and their underlined letter.
    for (const QMenuBar *bar : window->findChildren<QMenuBar *>()) {
        for (const QAction *menu : bar->actions()) {
            const QKeySequence key = QKeySequence::mnemonic(menu->text());
            if (!key.isEmpty())
                lines.append({key.toString(QKeySequence::NativeText),
                              QObject::tr("Open the %1 menu").arg(plainText(menu->text()))});
        }
    }
    return lines;
}

ShortcutsDialog::ShortcutsDialog(const QList<ShortcutLine> &lines, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard shortcuts"));
    auto *table = new QTableWidget(int(lines.size()), 2);
    table->setObjectName(QStringLiteral("shortcutsTable"));
    table->setHorizontalHeaderLabels({tr("Keys"), tr("Action")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    for (int row = 0; row < lines.size(); ++row) {
        table->setItem(row, 0, new QTableWidgetItem(lines.at(row).keys));
        table->setItem(row, 1, new QTableWidgetItem(lines.at(row).action));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(table);
    layout->addWidget(buttons);
    const int rows = std::min<int>(int(lines.size()), 20);
    resize(table->horizontalHeader()->length() + 80,
           table->horizontalHeader()->height()
                   + rows * table->verticalHeader()->defaultSectionSize()
                   + buttons->sizeHint().height() + 60);
}

ShortcutsDialog::~ShortcutsDialog() = default;

} // namespace leader::console
