#pragma once

#include <optional>
#include <span>
#include <string_view>

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

} // namespace leader
