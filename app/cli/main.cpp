// tokenscope-cli: the scriptable face of TokenScope. Subcommands print JSON with --json.
#include <QCoreApplication>
#include <cstdio>

#include "app/cli/bench_command.h"
#include "app/cli/chat_command.h"
#include "app/cli/config_command.h"
#include "app/cli/convert_command.h"
#include "app/cli/doctor_command.h"
#include "app/cli/download_command.h"
#include "app/cli/generate_command.h"
#include "app/cli/serve_command.h"

namespace {

void printUsage() {
  std::printf(
      "Usage: tokenscope-cli <command> [options]\n\n"
      "Commands:\n"
      "  bench      benchmark an endpoint: latency percentiles, throughput, goodput\n"
      "  chat       stream one chat completion from an OpenAI-compatible endpoint, measured\n"
      "  config     show the effective configuration and its sources; check or export files\n"
      "  convert    write a model as GGUF or safetensors (or one with random weights)\n"
      "  doctor     check a provider step by step and say how to fix what fails\n"
      "  download   fetch a model file from a Hugging Face hub (resumable, verified)\n"
      "  generate   generate tokens with the local engine (CPU or CUDA), measured\n"
      "  serve      serve the local engine as an OpenAI-compatible API\n"
      "  tokenize   show how a model's vocabulary splits a text\n"
      "  ppl        perplexity of a model on a text file\n\n"
      "  --version  print the version\n"
      "Run `tokenscope-cli <command> --help` for a command's options.\n");
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QCoreApplication::setApplicationName("tokenscope-cli");
  QCoreApplication::setApplicationVersion(TOKENSCOPE_VERSION);
  QStringList args = QCoreApplication::arguments().mid(1);
  if (args.isEmpty() || args.first() == "--help" || args.first() == "-h") {
    printUsage();
    return args.isEmpty() ? 2 : 0;
  }
  if (args.first() == "--version") {
    std::printf("tokenscope-cli %s\n", TOKENSCOPE_VERSION);
    return 0;
  }
  const QString command = args.takeFirst();
  if (command == "bench") return ts::runBenchCommand(args);
  if (command == "chat") return ts::runChatCommand(args);
  if (command == "config") return ts::runConfigCommand(args);
  if (command == "convert") return ts::runConvertCommand(args);
  if (command == "doctor") return ts::runDoctorCommand(args);
  if (command == "download") return ts::runDownloadCommand(args);
  if (command == "generate") return ts::runGenerateCommand(args);
  if (command == "serve") return ts::runServeCommand(args);
  if (command == "tokenize") return ts::runTokenizeCommand(args);
  if (command == "ppl") return ts::runPplCommand(args);
  std::fprintf(stderr, "tokenscope-cli: unknown command '%s'\n", command.toLocal8Bit().constData());
  printUsage();
  return 2;
}
