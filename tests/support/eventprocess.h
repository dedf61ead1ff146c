#pragma once

#include "toolprocess.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <optional>

namespace leader::test {

// A child process that writes one JSON object per stdout line (a replica of either kind, a tool),
// its output read as events while it runs. Each complete line is parsed once, when it is first
// read: tests poll the events many times a second for the whole run. Killed when destroyed if
// still running, so a test that fails half-way leaves no process behind.
class EventProcess final
{
public:
    EventProcess() = default;
    ~EventProcess()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished();
        }
    }
    EventProcess(const EventProcess &) = delete;
    EventProcess &operator=(const EventProcess &) = delete;

    // Starts program in cleanEnvironment() with assignments ("NAME=value") on top: the database
    // is what its arguments say, unless the test sets one on purpose.
    void start(const QString &program, const QStringList &arguments,
               const QStringList &assignments = {})
    {
        QProcessEnvironment environment = cleanEnvironment();
        for (const QString &assignment : assignments) {
            const qsizetype equals = assignment.indexOf(u'=');
            environment.insert(assignment.left(equals), assignment.mid(equals + 1));
        }
        m_process.setProcessEnvironment(environment);
        m_process.start(program, arguments);
    }

    QProcess &process() { return m_process; }

    // Every complete stdout line so far.
    const QStringList &lines()
    {
        events();
        return m_lines;
    }
    // Every complete stdout line so far as a JSON object; a line that is not one becomes an empty
    // object, so that lines() and events() stay index for index.
    const QList<QJsonObject> &events()
    {
        m_out += m_process.readAllStandardOutput();
        // What follows the last newline is a line still being written: it waits in m_out.
        for (qsizetype newline = m_out.indexOf('\n'); newline >= 0; newline = m_out.indexOf('\n')) {
            const QByteArray line = m_out.left(newline);
            m_lines << QString::fromUtf8(line);
            m_events << QJsonDocument::fromJson(line).object();
            m_out.remove(0, newline + 1);
        }
        return m_events;
    }
    // Everything on stderr so far.
    QString errors()
    {
        m_err += m_process.readAllStandardError();
        return QString::fromUtf8(m_err);
    }

    // The events named event whose fields include every pair of match, in order.
    QList<QJsonObject> all(const QString &event, const QJsonObject &match = {})
    {
        QList<QJsonObject> found;
        for (const QJsonObject &object : events()) {
            if (matches(object, event, match))
                found << object;
        }
        return found;
    }
    // The first of all(event, match).
    std::optional<QJsonObject> find(const QString &event, const QJsonObject &match = {})
    {
        for (const QJsonObject &object : events()) {
            if (matches(object, event, match))
                return object;
        }
        return std::nullopt;
    }
    // The holder id from the started event; empty before it.
    QString holder()
    {
        const std::optional<QJsonObject> started = find("started");
        return started ? started->value("holder").toString() : QString();
    }

private:
    static bool matches(const QJsonObject &object, const QString &event, const QJsonObject &match)
    {
        if (object.value("event").toString() != event)
            return false;
        for (auto it = match.begin(); it != match.end(); ++it) {
            if (object.value(it.key()) != it.value())
                return false;
        }
        return true;
    }

    QProcess m_process;
    QByteArray m_out; // the start of a line still being written
    QByteArray m_err;
    QStringList m_lines;
    QList<QJsonObject> m_events;
};

} // namespace leader::test
