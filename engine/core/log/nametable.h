#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

namespace leader {

// One entry of an enum's name table: the text that logs, event lines, metric labels and command
// lines print for a value, and that their readers parse back.
template<class E>
struct Named
{
    E value;
    std::string_view name;
};

// The name of value in table, or fallback when the table lacks it.
template<class E>
constexpr std::string_view nameIn(std::span<const Named<E>> table, E value,
                                  std::string_view fallback = "?")
{
    for (const Named<E> &entry : table)
        if (entry.value == value)
            return entry.name;
    return fallback;
}

// The value table names name, or none.
template<class E>
constexpr std::optional<E> valueIn(std::span<const Named<E>> table, std::string_view name)
{
    for (const Named<E> &entry : table)
        if (entry.name == name)
            return entry.value;
    return std::nullopt;
}

namespace detail {

// Whether V is one of its enum's enumerators. C++ cannot list an enum's values, but GCC and Clang
// (the only compilers this project builds with, MinGW included) print an enumerator by its name in
// __PRETTY_FUNCTION__ and any other value as a cast: "[with auto V = (leader::lease::Outcome)4]".
template<auto V>
constexpr bool isEnumerator()
{
    constexpr std::string_view function = __PRETTY_FUNCTION__;
    return function[function.rfind("V = ") + 4] != '(';
}

} // namespace detail

// How many enumerators E has, its values running 0, 1, 2, … as an enum's do by default.
template<class E, int Next = 0>
constexpr int enumCount()
{
    static_assert(Next < 256, "an enum of name tables counts from 0 without gaps");
    if constexpr (detail::isEnumerator<static_cast<E>(Next)>())
        return enumCount<E, Next + 1>();
    else
        return Next;
}

// Whether table holds each value of E exactly once, but those in unnamed (which it must not
// hold); valueOf reads an entry's value. Every name table of an enum is checked by a
// static_assert beside it, so an enumerator added without its entry, or an entry deleted, does not
// compile: deleting OutcomeNames' Lost entry fails with "static assertion failed".
template<class E, class Table, class ValueOf>
constexpr bool namesEveryValue(const Table &table, ValueOf valueOf,
                               std::initializer_list<E> unnamed = {})
{
    for (int i = 0; i < enumCount<E>(); ++i) {
        const E value = static_cast<E>(i);
        const auto inTable = std::ranges::count_if(
                table, [&](const auto &entry) { return valueOf(entry) == value; });
        const auto skipped = std::ranges::count(unnamed, value);
        if (inTable + skipped != 1)
            return false;
    }
    return std::size(table) + unnamed.size() == std::size_t(enumCount<E>());
}

// The same for a table of Named<E>, whose names must also be distinct and not empty, so that
// valueIn parses each back to its value.
template<class E, std::size_t N>
constexpr bool namesEveryValue(const std::array<Named<E>, N> &table,
                               std::initializer_list<E> unnamed = {})
{
    for (const Named<E> &entry : table)
        if (entry.name.empty() || valueIn<E>(table, entry.name) != entry.value)
            return false;
    return namesEveryValue<E>(
            table, [](const Named<E> &entry) { return entry.value; }, unnamed);
}

// The same for a table of pairs, the value first: the console's tables of Qt texts.
template<class E, class Name, std::size_t N>
constexpr bool namesEveryValue(const std::array<std::pair<E, Name>, N> &table,
                               std::initializer_list<E> unnamed = {})
{
    return namesEveryValue<E>(
            table, [](const std::pair<E, Name> &entry) { return entry.first; }, unnamed);
}

} // namespace leader
