#include "frota/collect/metrics.h"

#include <gtest/gtest.h>

#include <string>

namespace frota::collect {
namespace {

TEST(Metrics, AHistogramRendersCumulativeBucketsSumAndCount) {
  MetricsRegistry registry;
  auto& h = registry.GetHistogram("x_duration_seconds", "Durations", {0.5, 1}, {{"feed", "a"}});
  h.Observe(0.25);
  h.Observe(0.5);  // on a bound: counted in it (le)
  h.Observe(0.75);
  h.Observe(7);
  EXPECT_EQ(registry.Render(),
            "# HELP x_duration_seconds Durations\n"
            "# TYPE x_duration_seconds histogram\n"
            "x_duration_seconds_bucket{feed=\"a\",le=\"0.5\"} 2\n"
            "x_duration_seconds_bucket{feed=\"a\",le=\"1\"} 3\n"
            "x_duration_seconds_bucket{feed=\"a\",le=\"+Inf\"} 4\n"
            "x_duration_seconds_sum{feed=\"a\"} 8.5\n"
            "x_duration_seconds_count{feed=\"a\"} 4\n");
  EXPECT_EQ(registry.Value("x_duration_seconds", {{"feed", "a"}}), 4);
}

TEST(Metrics, AHistogramWithoutLabelsHasOnlyTheBucketLabel) {
  MetricsRegistry registry;
  registry.GetHistogram("y_seconds", "Y", DurationBuckets()).Observe(0.003);
  const std::string text = registry.Render();
  EXPECT_NE(text.find("y_seconds_bucket{le=\"0.005\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("y_seconds_bucket{le=\"+Inf\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("y_seconds_count 1\n"), std::string::npos) << text;
}

TEST(Metrics, RefreshersRunAtEveryRender) {
  MetricsRegistry registry;
  auto& gauge = registry.GetGauge("z_bytes", "Z");
  int renders = 0;
  registry.OnRender([&] { gauge.Set(++renders * 10); });
  EXPECT_NE(registry.Render().find("z_bytes 10\n"), std::string::npos);
  EXPECT_NE(registry.Render().find("z_bytes 20\n"), std::string::npos);
}

}  // namespace
}  // namespace frota::collect
