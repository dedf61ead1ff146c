#include "systemmessages.h"

#include <clocale>

namespace leader::console {

void useEnglishSystemMessages()
{
    std::setlocale(LC_MESSAGES, "C");
}

} // namespace leader::console
