#include "app/compare/lever_attribution.h"

#include <QCoreApplication>
#include <QHash>
#include <QRegularExpression>
#include <algorithm>

namespace ts {
namespace {

// Setting -> the lever it belongs to. A setting not here is no lever: started, benchmark
// and app_version are bookkeeping, cpu and gpu the machine.
const QHash<QString, QString>& leverOfSetting() {
  static const QHash<QString, QString> levers = [] {
    const QList<QPair<QString, QStringList>> groups = {
        {"model", {"provider", "base_url", "model"}},
        {"backend", {"backend"}},
        {"weights", {"weights"}},
        {"kv", {"kv_cache"}},
        {"threads", {"threads"}},
        {"draft", {"speculative"}},
        {"prefill", {"prefill_chunk", "tpot_target_ms"}},  // the lab's chunk:N and tpot:MS
        {"sampling", {"temperature", "top_p", "top_k", "repetition_penalty", "seed"}},
        {"max_tokens", {"max_tokens"}},
        {"stream", {"stream"}},
        {"prompt", {"prompt", "prompt_tokens", "prompt_words"}},
        {"concurrency", {"concurrency"}},
        {"request_rate", {"request_rate"}},
        {"max_running", {"max_running"}}};
    QHash<QString, QString> out;
    for (const auto& [lever, settings] : groups)
      for (const QString& setting : settings) out.insert(setting, lever);
    return out;
  }();
  return levers;
}

// The levers `tokenscope-cli lab --vary` takes that a stored run's settings can name.
const QStringList kLabLevers = {"weights", "kv", "draft", "prefill", "threads"};

// A desktop benchmark of a local model records its base URL as "local: <path>", a chat
// on it the path itself: the same model either way.
QString modelOf(const QString& base_url) {
  return base_url.startsWith("local: ") ? base_url.mid(7) : base_url;
}

// Whether `values` of `setting` name the same thing. A desktop benchmark does not record
// the local runtime, nor did runs stored before threads were: an empty backend, weights, KV
// format or thread count is unknown, not different.
bool allEqual(const QString& setting, QStringList values) {
  if (setting == "base_url")
    for (QString& v : values) v = modelOf(v);
  if (setting == "backend" || setting == "weights" || setting == "kv_cache" || setting == "threads")
    values.removeAll(QString());
  return values.count(values.value(0)) == values.size();
}

// The path of the local model a series ran, "" for a remote endpoint (or a local model
// served over HTTP by the CLI's bench, which stores only the address).
QString localModelPath(const QHash<QString, QString>& s) {
  const QString url = s.value("base_url");
  if (url.startsWith("local: ")) return url.mid(7);
  const bool engine = QStringList{"cpu", "cuda", "auto"}.contains(s.value("backend"));
  return engine && !url.isEmpty() && !url.contains("://") ? url : QString();
}

// The lab's value of `lever` in one series; "" where the series has the lab's baseline
// (weights as stored, KV f16, no draft, the default prefill), which is nothing to vary to.
QString labValue(const QHash<QString, QString>& s, const QString& lever, QString& draft_k) {
  if (lever == "weights") {
    const QString w = s.value("weights");
    return w == "auto" ? QString() : w;
  }
  if (lever == "kv") return s.value("kv_cache") == "f16" ? QString() : s.value("kv_cache");
  if (lever == "draft") {
    const QString spec = s.value("speculative");  // "self-int4, K 4", "lookup, K auto"
    if (spec.isEmpty() || spec == "off") return {};
    const qsizetype k = spec.lastIndexOf(", K ");
    if (k < 0) return spec;
    // the lab drafts a fixed K; for an adaptive one it keeps its own default
    if (spec.mid(k + 4) != "auto") draft_k = spec.mid(k + 4);
    return spec.left(k);
  }
  if (lever == "threads") return s.value("threads");
  if (lever == "prefill") {
    if (!s.value("prefill_chunk").isEmpty()) return "chunk:" + s.value("prefill_chunk");
    if (!s.value("tpot_target_ms").isEmpty()) return "tpot:" + s.value("tpot_target_ms");
  }
  return {};
}

QString shellWord(const QString& word) {
  static const QRegularExpression plain("^[A-Za-z0-9_./:=@%+,-]+$");
  if (plain.match(word).hasMatch()) return word;
  return '\'' + QString(word).replace("'", "'\\''") + '\'';
}

QHash<QString, QString> settingsOf(const ComparedSeries& s) {
  QHash<QString, QString> out;
  for (const auto& [name, value] : seriesSettings(s)) out.insert(name, value);
  return out;
}

// The sentence for one pair that differs in `levers` (two or more): "These runs …" when
// only two series are compared, else the pair by its tags.
QString warningFor(const QStringList& levers, const QString& a = {}, const QString& b = {}) {
  QStringList names;
  for (const QString& lever : levers) names << leverName(lever);
  const QString list = listOfNames(names);
  if (a.isEmpty())
    return levers.size() == 2
               ? QCoreApplication::translate(
                     "ts::LeverAttribution",
                     "These runs differ in %1: the difference cannot be attributed to either.")
                     .arg(list)
               : QCoreApplication::translate("ts::LeverAttribution",
                                             "These runs differ in %1: the difference cannot be "
                                             "attributed to any one of them.")
                     .arg(list);
  return levers.size() == 2
             ? QCoreApplication::translate("ts::LeverAttribution",
                                           "%1 and %2 differ in %3: the difference between them "
                                           "cannot be attributed to either.")
                   .arg(a, b, list)
             : QCoreApplication::translate("ts::LeverAttribution",
                                           "%1 and %2 differ in %3: the difference between them "
                                           "cannot be attributed to any one of them.")
                   .arg(a, b, list);
}

// The lab commands that measure each of `levers` alone, for a pair of local runs of a
// stored model path (the first's): nothing for remote runs.
QList<ui::SingleLeverOffer> offersFor(const QHash<QString, QString>& first,
                                      const QHash<QString, QString>& second,
                                      const QStringList& levers) {
  QList<ui::SingleLeverOffer> out;
  const QString path = localModelPath(first);
  if (path.isEmpty() || localModelPath(second).isEmpty()) return out;
  for (const QString& lever : levers) {
    if (!kLabLevers.contains(lever)) continue;
    QString first_k, second_k;
    const QString in_first = labValue(first, lever, first_k);
    const QString in_second = labValue(second, lever, second_k);
    const QString value = in_second.isEmpty() ? in_first : in_second;
    if (value.isEmpty()) continue;
    const QString k = in_second.isEmpty() ? first_k : second_k;
    QString command = singleLeverCommand(path, lever, value, k);
    // threads have no "as stored": the first run's count is the baseline
    if (lever == "threads" && !in_first.isEmpty() && !in_second.isEmpty())
      command.replace(" --vary ", " --threads " + in_first + " --vary ");
    out.append({lever, value,
                QCoreApplication::translate("ts::LeverAttribution", "Measure %1 alone…")
                    .arg(leverName(lever)),
                command});
  }
  return out;
}

// Whether two series ran on machines known to differ (a CPU or GPU name; "" is unknown).
bool otherMachines(const QList<QHash<QString, QString>>& settings) {
  for (const char* key : {"cpu", "gpu"}) {
    QStringList known;
    for (const auto& s : settings)
      if (!s.value(key).isEmpty()) known << s.value(key);
    if (known.size() > 1 && known.count(known.front()) != known.size()) return true;
  }
  return false;
}

}  // namespace

QStringList differingLevers(const DifferingSettings& differing) {
  QStringList out;
  for (const auto& [name, values] : differing) {
    const QString lever = leverOfSetting().value(name);
    if (lever.isEmpty() || name == "prompt_tokens" || allEqual(name, values)) continue;
    if (!out.contains(lever)) out << lever;
  }
  // the same prompt counts differently under another tokenizer, and an unknown count
  // ("", a server that sent none) says nothing
  for (const auto& [name, values] : differing)
    if (name == "prompt_tokens" && !out.contains("model") && !out.contains("prompt") &&
        !values.contains(QString()) && !allEqual(name, values))
      out << "prompt";
  return out;
}

QString leverName(const QString& lever) {
  static const QHash<QString, const char*> names = {
      {"model", QT_TRANSLATE_NOOP("ts::LeverAttribution", "model or endpoint")},
      {"backend", QT_TRANSLATE_NOOP("ts::LeverAttribution", "backend")},
      {"weights", QT_TRANSLATE_NOOP("ts::LeverAttribution", "weights")},
      {"kv", QT_TRANSLATE_NOOP("ts::LeverAttribution", "KV cache")},
      {"threads", QT_TRANSLATE_NOOP("ts::LeverAttribution", "CPU threads")},
      {"draft", QT_TRANSLATE_NOOP("ts::LeverAttribution", "speculative sampling")},
      {"prefill", QT_TRANSLATE_NOOP("ts::LeverAttribution", "prefill policy")},
      {"sampling", QT_TRANSLATE_NOOP("ts::LeverAttribution", "sampling parameters")},
      {"max_tokens", QT_TRANSLATE_NOOP("ts::LeverAttribution", "maximum output length")},
      {"stream", QT_TRANSLATE_NOOP("ts::LeverAttribution", "streaming")},
      {"prompt", QT_TRANSLATE_NOOP("ts::LeverAttribution", "prompt")},
      {"concurrency", QT_TRANSLATE_NOOP("ts::LeverAttribution", "concurrency")},
      {"request_rate", QT_TRANSLATE_NOOP("ts::LeverAttribution", "request rate")},
      {"max_running", QT_TRANSLATE_NOOP("ts::LeverAttribution", "running sequences")}};
  const char* name = names.value(lever);
  return name ? QCoreApplication::translate("ts::LeverAttribution", name) : lever;
}

QString listOfNames(const QStringList& names) {
  if (names.size() <= 1) return names.value(0);
  QString head = names.front();
  for (qsizetype i = 1; i + 1 < names.size(); ++i)
    head = QCoreApplication::translate("ts::LeverAttribution", "%1, %2").arg(head, names[i]);
  return QCoreApplication::translate("ts::LeverAttribution", "%1 and %2").arg(head, names.back());
}

DifferingSettings pairDifference(const DifferingSettings& differing, int a, int b) {
  DifferingSettings out;
  for (const auto& [name, values] : differing)
    if (values.value(a) != values.value(b)) out.append({name, {values.value(a), values.value(b)}});
  return out;
}

QString singleLeverCommand(const QString& model_path, const QString& lever, const QString& value,
                           const QString& draft_k) {
  QString command = "tokenscope-cli lab --model " + shellWord(model_path) + " --vary " +
                    shellWord(lever + '=' + value);
  if (!draft_k.isEmpty()) command += " --draft-k " + shellWord(draft_k);
  return command + " --repeat 5";
}

LeverAttribution attributeLevers(const QList<ComparedSeries>& series) {
  LeverAttribution out;
  const DifferingSettings differing = differingSettings(series);
  out.levers = differingLevers(differing);
  QList<QHash<QString, QString>> settings;
  for (const ComparedSeries& s : series) settings << settingsOf(s);
  ui::AttributionNotice& notice = out.notice;
  QStringList sentences;
  for (int a = 0; a < series.size(); ++a)
    for (int b = a + 1; b < series.size(); ++b) {
      const QStringList levers = differingLevers(pairDifference(differing, a, b));
      if (levers.size() < 2) continue;
      sentences << (series.size() == 2 ? warningFor(levers)
                                       : warningFor(levers, series[a].tag, series[b].tag));
      for (const ui::SingleLeverOffer& offer : offersFor(settings[a], settings[b], levers))
        if (std::none_of(notice.offers.begin(), notice.offers.end(),
                         [&](const auto& o) { return o.command == offer.command; }))
          notice.offers << offer;
    }
  // one lever offered at two values (more than two series): the buttons name the value
  for (ui::SingleLeverOffer& offer : notice.offers)
    if (std::count_if(notice.offers.begin(), notice.offers.end(),
                      [&](const auto& o) { return o.lever == offer.lever; }) > 1)
      offer.button = QCoreApplication::translate("ts::LeverAttribution", "Measure %1 %2 alone…")
                         .arg(leverName(offer.lever), offer.value);
  notice.warning = sentences.join(' ');
  if (!notice.warning.isEmpty() && notice.offers.isEmpty())
    notice.advice = QCoreApplication::translate("ts::LeverAttribution",
                                                "Run them again changing one setting at a time.");
  if (otherMachines(settings))
    notice.machines = QCoreApplication::translate(
        "ts::LeverAttribution",
        "These runs were measured on different machines (another CPU or GPU): part of the "
        "difference may be the machine.");
  return out;
}

}  // namespace ts
