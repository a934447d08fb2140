# Plots: every execution draws on PNG pages in a private directory of its own (the default device), and
# after the run the pages are closed and handed to the agent as display items, in the order drawn.
sandpit_plot_dir <- NULL

sandpit_begin_plots <- function(run) {
  if (!is.null(sandpit_plot_dir)) unlink(sandpit_plot_dir, recursive = TRUE)
  dir <- file.path(tempdir(), sprintf("sandpit-plots-%d", run))
  dir.create(dir, showWarnings = FALSE, mode = "0700")
  sandpit_plot_dir <<- dir
  options(device = function(...) {
    grDevices::png(file.path(dir, "page-%04d.png"), width = 672, height = 480, res = 96, type = "cairo")
  })
}

# The PNG pages of this run, after closing every device (which writes the last page).
sandpit_collect_plots <- function() {
  try(grDevices::graphics.off(), silent = TRUE)
  if (is.null(sandpit_plot_dir)) return(character(0))
  sort(list.files(sandpit_plot_dir, pattern = "^page-[0-9]+\\.png$", full.names = TRUE))
}
