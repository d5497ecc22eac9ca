"""What several pages share: the sidebar and its URL binding, formatting, the chart theme, i18n, shared rows."""
