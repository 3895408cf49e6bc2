#pragma once
#include <QStringList>

namespace ts {

// tokenscope-cli download (--repo OWNER/NAME --file PATH | --url URL) [--revision R]
// [--hub URL] [--dir DIR] [--json]: one model file from a Hugging Face hub, resumable,
// verified against the size and sha256 the hub reports.
int runDownloadCommand(const QStringList& args);

}  // namespace ts
