#include "ui/table_dialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace ts::ui {
namespace {
constexpr int kWidestColumnPercent = 40;  // of the table's width, for a column but the last
}  // namespace

TableDialog::TableDialog(const QString& title, const QStringList& headers, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(title);
  resize(960, 420);
  auto* layout = new QVBoxLayout(this);
  table_ = new QTableWidget(0, static_cast<int>(headers.size()), this);
  table_->setObjectName("tableDialogTable");
  table_->setHorizontalHeaderLabels(headers);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setWordWrap(true);
  table_->verticalHeader()->setVisible(false);
  // Every row as tall as its wrapped text at the columns' final widths (sizing rows as they
  // are added measured them against a narrower first column: uneven heights).
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  layout->addWidget(table_, 1);
  summary_ = new QLabel(this);
  summary_->setObjectName("tableDialogSummary");
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  action_ = buttons->addButton("", QDialogButtonBox::ActionRole);
  action_->setVisible(false);
  connect(action_, &QPushButton::clicked, this, &TableDialog::actionClicked);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
}

void TableDialog::clearRows() {
  table_->setRowCount(0);
}

void TableDialog::addRow(const QStringList& cells, std::optional<bool> good,
                         const QString& tooltip) {
  const int row = table_->rowCount();
  table_->insertRow(row);
  for (int c = 0; c < cells.size() && c < table_->columnCount(); ++c) {
    auto* item = new QTableWidgetItem(cells[c]);
    if (!tooltip.isEmpty()) item->setToolTip(tooltip);
    if (c == 0 && good)
      item->setForeground(*good ? QColor(0x1e, 0x84, 0x49) : QColor(0xc0, 0x39, 0x2b));
    table_->setItem(row, c, item);
  }
  fitColumns();
}

void TableDialog::fitColumns() {
  // Every column but the last (which stretches and wraps) as wide as its widest cell, up
  // to kWidestColumnPercent of the dialog: a URL or a key whole on one line. A cell still cut
  // there shows its whole text on hover.
  const int widest = std::max(120, width() * kWidestColumnPercent / 100);  // shown or not
  for (int c = 0; c + 1 < table_->columnCount(); ++c) {
    table_->resizeColumnToContents(c);  // its cells and its header
    const int wanted = table_->columnWidth(c);
    table_->setColumnWidth(c, std::min(wanted, widest));
    if (wanted <= widest) continue;
    for (int r = 0; r < table_->rowCount(); ++r)
      if (QTableWidgetItem* item = table_->item(r, c); item && item->toolTip().isEmpty())
        item->setToolTip(item->text());
  }
}

void TableDialog::setSummary(const QString& text) {
  summary_->setText(text);
}

void TableDialog::setActionLabel(const QString& label) {
  action_->setText(label);
  action_->setVisible(!label.isEmpty());
}

}  // namespace ts::ui
