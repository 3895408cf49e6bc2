#include "ui/table_dialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ts::ui {

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
  table_->resizeColumnToContents(0);
}

void TableDialog::setSummary(const QString& text) {
  summary_->setText(text);
}

void TableDialog::setActionLabel(const QString& label) {
  action_->setText(label);
  action_->setVisible(!label.isEmpty());
}

}  // namespace ts::ui
