#include "app/compare/comparison.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <numeric>

#include "app/compare/bench_group.h"
#include "app/compare/lever_attribution.h"
#include "app/store/run_json.h"

namespace ts {
namespace {

std::optional<double> meanOf(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

QString localTime(const QDateTime& t, const QString& format) {
  return t.isValid() ? t.toLocalTime().toString(format) : QString();
}

QJsonValue orNull(const std::optional<double>& v) {
  return v ? QJsonValue(*v) : QJsonValue();
}

// The levers that differ (the lab's names), and where two or more do, the warning and
// the commands that measure each alone; the note on different machines.
void insertAttribution(QJsonObject& json, const LeverAttribution& a) {
  json.insert("levers_differing", QJsonArray::fromStringList(a.levers));
  if (!a.notice.warning.isEmpty()) json.insert("attribution_warning", a.notice.warning);
  if (!a.notice.machines.isEmpty()) json.insert("environment_note", a.notice.machines);
  QJsonArray commands;
  for (const ui::SingleLeverOffer& o : a.notice.offers)
    commands.append(QJsonObject{{"lever", o.lever}, {"value", o.value}, {"command", o.command}});
  if (!commands.isEmpty()) json.insert("single_lever_commands", commands);
}

}  // namespace

ComparedSeries compareRuns(const QString& label, const std::vector<StoredRun>& runs,
                           const QString& group) {
  ComparedSeries s;
  s.label = s.header = s.tag = label;
  s.group = group;
  std::vector<double> ttft, tpot, itl, e2e, decode, overall, prefill, acceptance;
  for (const StoredRun& r : runs) {
    s.run_ids << r.id;
    const RunMetrics m = computeMetrics(r.run);
    const StreamEvent* end = r.run.terminal();
    (end && end->kind == EventKind::Finished ? s.completed : s.failed)++;
    if (m.ttft_ns) ttft.push_back(*m.ttft_ns / 1e6);
    if (m.tpot_ns) tpot.push_back(*m.tpot_ns / 1e6);
    if (m.e2e_ns) e2e.push_back(*m.e2e_ns / 1e6);
    for (int64_t gap : m.itl_ns) itl.push_back(gap / 1e6);
    if (m.decode_tok_s) decode.push_back(*m.decode_tok_s);
    if (m.overall_tok_s) overall.push_back(*m.overall_tok_s);
    if (m.prefill_ns) prefill.push_back(*m.prefill_ns / 1e6);
    if (m.acceptance_rate) acceptance.push_back(*m.acceptance_rate);
    s.output_tokens += m.output_tokens;
    s.runs.append({r.id, r.started, r.status, m.prompt_tokens, m.output_tokens});
  }
  s.ttft_ms = summarize(ttft);
  s.tpot_ms = summarize(tpot);
  s.itl_ms = summarize(itl);
  s.e2e_ms = summarize(e2e);
  s.decode_tok_s = meanOf(decode);
  s.overall_tok_s = meanOf(overall);
  s.prefill_ms = meanOf(prefill);
  s.acceptance_rate = meanOf(acceptance);
  if (!runs.empty()) {
    s.first = runs.front();
    const RecordedRun& run = runs.front().run;
    int64_t previous = -1;
    for (const StreamEvent& e : run.events) {
      if (e.kind != EventKind::TokenChunk) continue;
      if (e.batch > 0) s.batch_curve << QPointF((e.t_ns - run.start_ns) / 1e9, e.batch);
      if (e.text.empty()) continue;
      if (previous >= 0)
        s.itl_curve << QPointF((e.t_ns - run.start_ns) / 1e9, (e.t_ns - previous) / 1e6);
      previous = e.t_ns;
    }
  }
  return s;
}

QList<QPair<QString, QString>> seriesSettings(const ComparedSeries& s) {
  const StoredRun& r = s.first;
  const SamplingParams& p = r.request.params;
  const auto lastUserMessage = [&] {
    for (auto it = r.request.messages.rbegin(); it != r.request.messages.rend(); ++it)
      if (it->role == "user") return QString::fromStdString(it->content);
    return QString();
  };
  QList<QPair<QString, QString>> out = {
      {"provider", r.context.provider},
      {"base_url", r.context.base_url},
      {"model", r.context.model},
      {"backend", r.context.backend},
      {"weights", r.context.weights},
      {"kv_cache", r.context.kv},
      {"threads", r.context.threads > 0 ? QString::number(r.context.threads) : QString()},
      {"speculative", r.context.speculative.isEmpty() ? QString("off") : r.context.speculative}};
  const BenchGroup bench = parseBenchGroup(r.context.group);
  for (const QString& name : benchSettingNames()) {
    QString value;
    for (const auto& [key, v] : bench.values)
      if (key == name) value = v;
    out.append({name, value});
  }
  QString prompt_tokens;  // of the first run, when the server or the engine counted them
  if (!s.runs.isEmpty() && s.runs.front().prompt_tokens)
    prompt_tokens = QString::number(*s.runs.front().prompt_tokens);
  out << QPair<QString, QString>{"benchmark", bench.sweep}
      << QPair<QString, QString>{"temperature", QString::number(p.temperature)}
      << QPair<QString, QString>{"top_p", QString::number(p.top_p)}
      << QPair<QString, QString>{"top_k", QString::number(p.top_k)}
      << QPair<QString, QString>{"repetition_penalty", QString::number(p.repetition_penalty)}
      << QPair<QString, QString>{"max_tokens", QString::number(p.max_tokens)}
      << QPair<QString, QString>{"stream", p.stream ? "true" : "false"}
      << QPair<QString, QString>{"seed", p.seed ? QString::number(*p.seed) : QString()}
      << QPair<QString, QString>{"prompt", lastUserMessage()}
      << QPair<QString, QString>{"prompt_tokens", prompt_tokens}
      << QPair<QString, QString>{"started", localTime(r.started, "yyyy-MM-dd HH:mm:ss")}
      << QPair<QString, QString>{"cpu", r.environment.value("cpu").toString()}
      << QPair<QString, QString>{"gpu", r.environment.value("gpu").toString()}
      << QPair<QString, QString>{"app_version", r.environment.value("app_version").toString()};
  return out;
}

QList<QPair<QString, QStringList>> differingSettings(const QList<ComparedSeries>& series) {
  QList<QPair<QString, QStringList>> out;
  if (series.isEmpty()) return out;
  QList<QList<QPair<QString, QString>>> settings;
  for (const ComparedSeries& s : series) settings << seriesSettings(s);
  for (qsizetype i = 0; i < settings.front().size(); ++i) {
    QStringList values;
    for (const auto& each : settings) values << each.at(i).second;
    if (values.count(values.front()) != values.size())
      out.append({settings.front().at(i).first, values});
  }
  return out;
}

void nameSeries(QList<ComparedSeries>& series) {
  // The settings that name a difference, most telling first (a benchmark step's value is
  // the group's tag already); the date, the prompt and the machine do not.
  static const QStringList telling = {"model",       "provider", "base_url", "backend",
                                      "weights",     "kv_cache", "threads",  "speculative",
                                      "temperature", "top_p",    "top_k",    "repetition_penalty",
                                      "max_tokens",  "seed",     "stream"};
  const auto differing = differingSettings(series);
  QStringList tags;
  for (const ComparedSeries& s : series) {
    const qint64 id = s.run_ids.isEmpty() ? 0 : s.run_ids.front();
    const QString step = benchStepText(parseBenchGroup(s.group));
    tags << (s.group.isEmpty() || step.isEmpty() ? QString("#%1").arg(id) : step);
  }
  for (qsizetype i = 0; i < series.size(); ++i) {
    ComparedSeries& s = series[i];
    QString tag = tags[i];
    if (tags.count(tag) > 1 && !s.run_ids.isEmpty())  // two steps of the same value
      tag += QString(" #%1").arg(s.run_ids.front());
    QString setting;  // "temperature 0.2": the first telling setting that differs
    for (const auto& [name, values] : differing)
      if (telling.contains(name) && setting.isEmpty())
        setting = name + ' ' +
                  (values[i].isEmpty()      ? QString("—")
                   : values[i].size() <= 24 ? values[i]
                                            : values[i].left(23) + QString::fromUtf8("…"));
    // the legend's label: short enough to stay whole beside the chart
    QStringList parts{tag};
    if (!s.group.isEmpty())
      parts << QCoreApplication::translate("ts::Comparison", "%1 runs").arg(s.run_ids.size());
    else if (!setting.isEmpty())
      parts << setting;
    else
      parts << localTime(s.first.started, "MM-dd HH:mm:ss");
    parts.removeAll(QString());
    s.tag = tag;
    s.label = parts.join(" · ");
    // spelled out (not a local tr()), so that lupdate files them under the context looked up
    const QString detail =
        !s.group.isEmpty()
            ? QCoreApplication::translate("ts::Comparison", "(%1 runs)").arg(s.run_ids.size())
        : !setting.isEmpty() ? setting
                             : localTime(s.first.started, "HH:mm:ss");
    s.header = detail.isEmpty() ? tag : tag + '\n' + detail;
  }
}

QString comparisonCsv(const QList<ComparedSeries>& series) {
  const auto field = [](QString text) {  // RFC 4180: quote when needed, double the quotes
    if (text.contains(',') || text.contains('"') || text.contains('\n'))
      text = '"' + text.replace("\"", "\"\"") + '"';
    return text;
  };
  QString csv = "series,metric,mean,p50,p90,p99,count,run_ids";
  if (!series.isEmpty())
    for (const auto& [name, value] : seriesSettings(series.front())) csv += ',' + name;
  csv += ",levers_differing,attribution_warning\n";
  const LeverAttribution attribution = attributeLevers(series);
  const QString attributed =
      ',' + attribution.levers.join(' ') + ',' + field(attribution.notice.warning);
  for (const ComparedSeries& s : series) {
    QString tail(",");  // the run ids, every setting and the levers, on each of its rows
    for (qint64 id : s.run_ids) tail += (tail.size() > 1 ? " " : "") + QString::number(id);
    for (const auto& [name, value] : seriesSettings(s)) tail += ',' + field(value);
    tail += attributed;
    for (auto [name, m] : {std::pair{"ttft_ms", s.ttft_ms}, std::pair{"tpot_ms", s.tpot_ms},
                           std::pair{"itl_ms", s.itl_ms}, std::pair{"e2e_ms", s.e2e_ms}})
      csv += QString("%1,%2,%3,%4,%5,%6,%7")
                 .arg(field(s.label), name)
                 .arg(m.mean, 0, 'g', 10)
                 .arg(m.p50, 0, 'g', 10)
                 .arg(m.p90, 0, 'g', 10)
                 .arg(m.p99, 0, 'g', 10)
                 .arg(m.count) +
             tail + '\n';
    for (auto [name, v] :
         {std::pair{"decode_tok_s", s.decode_tok_s}, std::pair{"overall_tok_s", s.overall_tok_s},
          std::pair{"prefill_ms", s.prefill_ms}, std::pair{"acceptance_rate", s.acceptance_rate}})
      if (v)
        csv += QString("%1,%2,%3,,,,").arg(field(s.label), name).arg(*v, 0, 'g', 10) + tail + '\n';
  }
  return csv;
}

QJsonObject comparisonJson(const QList<ComparedSeries>& series) {
  QJsonArray out;
  for (const ComparedSeries& s : series) {
    QJsonArray ids;
    for (qint64 id : s.run_ids) ids.append(id);
    QJsonObject o{{"label", s.label},
                  {"runs", ids},
                  {"completed", s.completed},
                  {"failed", s.failed},
                  {"total_output_tokens", static_cast<qint64>(s.output_tokens)},
                  {"decode_tok_s", orNull(s.decode_tok_s)},
                  {"overall_tok_s", orNull(s.overall_tok_s)},
                  {"prefill_ms", orNull(s.prefill_ms)},
                  {"acceptance_rate", orNull(s.acceptance_rate)}};
    for (auto [name, m] : {std::pair{"ttft", s.ttft_ms}, std::pair{"tpot", s.tpot_ms},
                           std::pair{"itl", s.itl_ms}, std::pair{"e2el", s.e2e_ms}}) {
      o.insert(QString("mean_%1_ms").arg(name), m.mean);
      o.insert(QString("median_%1_ms").arg(name), m.p50);
      o.insert(QString("p90_%1_ms").arg(name), m.p90);
      o.insert(QString("p99_%1_ms").arg(name), m.p99);
    }
    QJsonObject settings;
    for (const auto& [name, value] : seriesSettings(s)) settings.insert(name, value);
    o.insert("settings", settings);
    o.insert("environment", s.first.environment);
    if (!s.group.isEmpty()) o.insert("group", s.group);
    QJsonArray details;
    for (const ComparedSeries::Run& r : s.runs)
      details.append(QJsonObject{
          {"id", r.id},
          {"started", r.started.toUTC().toString(Qt::ISODateWithMs)},
          {"status", r.status},
          {"prompt_tokens",
           r.prompt_tokens ? QJsonValue(static_cast<qint64>(*r.prompt_tokens)) : QJsonValue()},
          {"output_tokens", static_cast<qint64>(r.output_tokens)}});
    o.insert("run_details", details);
    out.append(o);
  }
  QJsonObject json{{"series", out}};
  insertAttribution(json, attributeLevers(series));
  return json;
}

ui::ComparisonContent comparisonContent(const QList<ComparedSeries>& series) {
  ui::ComparisonContent content;
  for (const ComparedSeries& s : series) content.series << s;
  // Steps of one swept setting: the box plot's categories are its values, the axis its name.
  QString name;
  QStringList values;
  for (const ComparedSeries& s : series) {
    const BenchGroup g = parseBenchGroup(s.group);
    if (g.values.size() != 1 || (!name.isEmpty() && g.values.front().first != name)) {
      name.clear();
      break;
    }
    name = g.values.front().first;
    values << g.values.front().second;
  }
  if (!name.isEmpty() && values.removeDuplicates() == 0) {
    content.tag_title = name;
    for (qsizetype i = 0; i < values.size(); ++i) content.series[i].tag = values[i];
  }
  content.differing_settings = differingSettings(series);
  content.attribution = attributeLevers(series).notice;
  content.csv = comparisonCsv(series);
  content.json = QJsonDocument(comparisonJson(series)).toJson(QJsonDocument::Indented);
  return content;
}

}  // namespace ts
