package procdiff

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/trtmc-qual/trtmc-qual/harness/metrics"
	"github.com/trtmc-qual/trtmc-qual/native/bundle"
	"github.com/trtmc-qual/trtmc-qual/native/family"
	"github.com/trtmc-qual/trtmc-qual/native/manifest"
	"github.com/trtmc-qual/trtmc-qual/native/task"
)

// Gate is the family's "native vs expected" contract: for every pinned prompt, the native
// image is compared with the float64 implementation's image in golden/ (PSNR and
// SSIM bounds from the thresholds file: tight for fp32 profiles, looser for the fp16 variant),
// and must pass TRTMC's diffusion sanity bounds (pixel mean, pixel std, std ratio).
func (f Family) Gate(ctx context.Context, b *bundle.Bundle, m manifest.Manifest, tc manifest.Testcase, env family.GateEnv) (family.GateResult, error) {
	res := family.GateResult{Family: Name, Profile: m.Name, Testcase: tc.Name, BundleSHA: b.SHA256}
	th, err := manifest.ReadThresholds(manifest.ThresholdsPath(m, tc.Name))
	if err != nil {
		return res, err
	}
	limits := map[string]float64{}
	for _, k := range []string{"psnr_min_db", "ssim_min", "pixel_mean_min", "pixel_mean_max", "pixel_std_min", "std_ratio_min", "std_ratio_applies_above"} {
		if limits[k], err = th.Limit(k); err != nil {
			return res, err
		}
	}
	res.Thresholds = th.Overrides
	prompts, err := m.Prompts(env.Root, tc) // the pinned prompts, or the one a TRTMC-style testcase carries
	if err != nil {
		return res, err
	}
	settings, err := tc.ImageSettings()
	if err != nil {
		return res, err
	}
	mdl, err := f.Load(b, family.LoadOptions{})
	if err != nil {
		return res, err
	}
	gen, err := task.Lookup[task.ImageGenerator](mdl, m.Name, task.TextToImage)
	if err != nil {
		return res, err
	}
	steps, guidance := settingInt(settings, "num_inference_steps"), settingFloat(settings, "guidance_scale")
	worstPSNR, worstSSIM := math.Inf(1), 1.0
	for _, p := range prompts {
		req := task.FillImageDefaults(gen.ImageSpec(), task.ImageRequest{Prompt: p.Prompt, NegativePrompt: p.NegativePrompt,
			Seed: p.Seed, Steps: steps, Guidance: guidance, Count: 1})
		imgs, err := gen.GenerateImage(ctx, req)
		if err != nil {
			return res, fmt.Errorf("prompt %s: %w", p.ID, err)
		}
		item, psnr, ssim := checkImage(metrics.FromImage(imgs[0]), filepath.Join(env.Root, tc.Expected, p.ID+".png"), limits)
		item.ID, item.Output = p.ID, task.ImageSHA256(imgs[0])
		worstPSNR, worstSSIM = math.Min(worstPSNR, psnr), math.Min(worstSSIM, ssim)
		if !item.Passed {
			res.Failures = append(res.Failures, fmt.Sprintf("prompt %s: %s", p.ID, item.Detail))
		}
		res.Items = append(res.Items, item)
	}
	res.Figures = map[string]float64{"prompts": float64(len(prompts)), "psnr_min_db": worstPSNR, "ssim_min": worstSSIM,
		"steps": float64(steps), "guidance": guidance}
	if math.IsInf(worstPSNR, 1) {
		res.Figures["psnr_min_db"] = math.MaxFloat64 // JSON cannot hold +Inf; every image identical
		res.Figures["identical"] = 1
	}
	res.Passed = len(res.Failures) == 0
	return res, nil
}

// checkImage compares one native image with its expected PNG and the sanity bounds.
func checkImage(got metrics.Planes, expectedPath string, lim map[string]float64) (family.GateItem, float64, float64) {
	item := family.GateItem{Expected: expectedPath}
	data, err := os.ReadFile(expectedPath)
	if err != nil {
		item.Detail = fmt.Sprintf("expected image missing: %v", err)
		return item, 0, 0
	}
	ref, err := metrics.DecodePNG(data)
	if err != nil {
		item.Detail = err.Error()
		return item, 0, 0
	}
	psnr, err := metrics.PSNR(got, ref)
	if err != nil {
		item.Detail = err.Error()
		return item, 0, 0
	}
	ssim, _ := metrics.SSIM(got, ref)
	stats, expectedStats := metrics.PixelStats(got), metrics.PixelStats(ref)
	ratio := metrics.StdRatio(got, ref)
	var fails []string
	if psnr < lim["psnr_min_db"] {
		fails = append(fails, fmt.Sprintf("PSNR %s < %v dB", metrics.FormatPSNR(psnr), lim["psnr_min_db"]))
	}
	if ssim < lim["ssim_min"] {
		fails = append(fails, fmt.Sprintf("SSIM %.5f < %v", ssim, lim["ssim_min"]))
	}
	if stats.Mean < lim["pixel_mean_min"] || stats.Mean > lim["pixel_mean_max"] {
		fails = append(fails, fmt.Sprintf("pixel mean %.3f outside [%v, %v]", stats.Mean, lim["pixel_mean_min"], lim["pixel_mean_max"]))
	}
	if stats.Std < lim["pixel_std_min"] {
		fails = append(fails, fmt.Sprintf("pixel std %.3f < %v", stats.Std, lim["pixel_std_min"]))
	}
	if expectedStats.Std >= lim["std_ratio_applies_above"] && ratio < lim["std_ratio_min"] {
		fails = append(fails, fmt.Sprintf("std ratio %.3f < %v", ratio, lim["std_ratio_min"]))
	}
	item.Passed = len(fails) == 0
	item.Distance = ssim
	item.Detail = fmt.Sprintf("PSNR %s, SSIM %.5f, mean %.3f, std %.3f, std ratio %.3f", metrics.FormatPSNR(psnr), ssim, stats.Mean, stats.Std, ratio)
	if !item.Passed {
		item.Detail = fmt.Sprint(fails, " (", item.Detail, ")")
	}
	return item, psnr, ssim
}

func settingInt(settings map[string]any, key string) int {
	v, _ := settings[key].(float64)
	return int(v)
}

func settingFloat(settings map[string]any, key string) float64 {
	if v, ok := settings[key].(float64); ok {
		return v
	}
	return -1 // FillImageDefaults takes the bundle's default
}
