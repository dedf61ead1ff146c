#pragma once

#include <QDialog>
#include <QList>
#include <QString>

namespace leader::console {

// One line of the keyboard map: the keys, and what they do.
struct ShortcutLine
{
    QString keys;   // "Ctrl+P", in the platform's own words
    QString action; // "Pause", the action's text without its mnemonic and ellipsis
};

// The keyboard map of window, read from its actions so it cannot drift from them: each action's
// shortcuts (the menus', the toolbar's, the tables' and fields' own), then the menu bar's Alt keys.
// Ordered as found, each action once.
QList<ShortcutLine> shortcutsOf(const QWidget *window);

// Help → Keyboard shortcuts: the map as a table.
class ShortcutsDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ShortcutsDialog)

public:
    explicit ShortcutsDialog(const QList<ShortcutLine> &lines, QWidget *parent = nullptr);
    ~ShortcutsDialog() override;
};

} // namespace leader::console
