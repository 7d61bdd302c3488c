#include "scheduler/device_profile.h"
#include "base/file_util.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace sg {

double DeviceProfile::request_seconds(uint64_t bytes) const {
  if (random_reads.empty()) return static_cast<double>(bytes) / sequential_bytes_per_second;
  if (bytes <= random_reads.front().bytes) return random_reads.front().seconds;
  for (size_t i = 1; i < random_reads.size(); ++i) {
    const RequestCost& lo = random_reads[i - 1];
    const RequestCost& hi = random_reads[i];
    if (bytes <= hi.bytes) {
      // Linear in bytes: exact for latency + transfer, and close to a
      // throttle's max(1/IOPS, transfer) with points a factor 2 apart.
      const double t = static_cast<double>(bytes - lo.bytes) / static_cast<double>(hi.bytes - lo.bytes);
      return lo.seconds + t * (hi.seconds - lo.seconds);
    }
  }
  const RequestCost& last = random_reads.back();
  return last.seconds + static_cast<double>(bytes - last.bytes) / sequential_bytes_per_second;
}

double DeviceProfile::latency_seconds() const { return random_reads.empty() ? 0.0 : random_reads.front().seconds; }

std::string DeviceProfile::to_json() const {
  nlohmann::json points = nlohmann::json::array();
  for (const RequestCost& r : random_reads) points.push_back({{"bytes", r.bytes}, {"seconds", r.seconds}});
  nlohmann::json j{{"device_class", device_class},
                   {"sequential_bytes_per_second", sequential_bytes_per_second},
                   {"random_reads", points}};
  return j.dump(1) + "\n";
}

Status DeviceProfile::from_json(const std::string& text, const std::string& path, DeviceProfile* p) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    p->device_class = j.at("device_class").get<std::string>();
    p->sequential_bytes_per_second = j.at("sequential_bytes_per_second").get<double>();
    p->random_reads.clear();
    for (const auto& r : j.at("random_reads")) {
      p->random_reads.push_back({r.at("bytes").get<uint64_t>(), r.at("seconds").get<double>()});
    }
  } catch (const std::exception& e) {
    return Status::Corruption(path + ": not a valid device profile (" + json_error_text(e.what()) +
                              "); run 'shardgraph calibrate' again or remove it");
  }
  std::sort(p->random_reads.begin(), p->random_reads.end(),
            [](const RequestCost& a, const RequestCost& b) { return a.bytes < b.bytes; });
  if (p->sequential_bytes_per_second <= 0 || p->random_reads.empty())
    return Status::Corruption(path + ": empty profile");
  p->source = path;
  return Status::OK();
}

Status preset_profile(const std::string& device_class, DeviceProfile* p) {
  double bandwidth = 0, latency = 0, iops_cap = 0;
  if (device_class == "hdd") {
    bandwidth = 150e6;
    iops_cap = 300;  // a request costs at least 1/300 s; large ones cost their transfer
  } else if (device_class == "ssd") {
    bandwidth = 500e6;
    latency = 100e-6;
  } else if (device_class == "nvme") {
    bandwidth = 2.5e9;
    latency = 20e-6;
  } else {
    return Status::InvalidArgument("unknown device class '" + device_class + "' (hdd, ssd, nvme)");
  }
  p->device_class = device_class;
  p->source = "preset";
  p->sequential_bytes_per_second = bandwidth;
  p->random_reads.clear();
  for (uint64_t bytes = 4096; bytes <= (uint64_t{16} << 20); bytes *= 2) {
    const double transfer = static_cast<double>(bytes) / bandwidth;
    const double seconds = iops_cap > 0 ? std::max(1.0 / iops_cap, transfer) : latency + transfer;
    p->random_reads.push_back({bytes, seconds});
  }
  return Status::OK();
}

Status load_device_profile(const std::string& dir, const std::string& fallback_class, DeviceProfile* profile,
                           bool* preset) {
  const std::string path = dir + "/" + kProfileFileName;
  std::ifstream in(path);
  if (!in) {
    *preset = true;
    return preset_profile(fallback_class, profile);
  }
  std::stringstream text;
  text << in.rdbuf();
  *preset = false;
  return DeviceProfile::from_json(text.str(), path, profile);
}

}  // namespace sg
