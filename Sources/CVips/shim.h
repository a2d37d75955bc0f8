#include <vips/vips.h>

// Swift cannot call C variadic functions, and libvips passes options as NULL-terminated
// name/value lists. These non-variadic wrappers fix the options the gallery uses.

static inline int gallery_vips_init(void) {
    if (VIPS_INIT("gallery")) return -1;
    // Thumbnails are made once and cached on disk; libvips' operation cache would only hold memory.
    vips_cache_set_max(0);
    return 0;
}

static inline const char *gallery_vips_error(void) { return vips_error_buffer(); }
static inline void gallery_vips_error_clear(void) { vips_error_clear(); }

/// Name of the loader libvips would use for this buffer, or NULL when it is not an image format it knows.
static inline const char *gallery_vips_find_loader(const void *buf, size_t len) {
    return vips_foreign_find_load_buffer(buf, len);
}

/// Reads only the header (dimensions) of an image in memory. Returns 0 on success.
static inline int gallery_vips_probe(const void *buf, size_t len, int *width, int *height) {
    VipsImage *image = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image) return -1;
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    g_object_unref(image);
    return 0;
}

/// Thumbnail fitting width × height (never enlarged), auto-rotated, saved as JPEG. The caller frees *out with g_free.
/// Truncated or corrupt input fails instead of being padded with grey.
static inline int gallery_vips_thumbnail_jpeg(const void *buf, size_t len, int width, int height, int quality,
                                              void **out, size_t *out_len) {
    VipsImage *thumb = NULL;
    if (vips_thumbnail_buffer((void *)buf, len, &thumb, width, "height", height, "size", VIPS_SIZE_DOWN,
                              "option_string", "fail_on=truncated", NULL)) return -1;
    // Flatten alpha onto white: JPEG has no alpha and the grid shows tiles on a light page.
    VipsImage *flat = NULL;
    if (vips_image_hasalpha(thumb)) {
        VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
        int rc = vips_flatten(thumb, &flat, "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        g_object_unref(thumb);
        if (rc) return -1;
    } else {
        flat = thumb;
    }
    int rc = vips_jpegsave_buffer(flat, out, out_len, "Q", quality, "strip", TRUE, NULL);
    g_object_unref(flat);
    return rc;
}

/// A sample picture: a diagonal colour gradient with `text` in white, encoded as JPEG.
/// `noise` > 0 adds Gaussian grain of that sigma, so the JPEG costs what a photograph costs to decode.
static inline int gallery_vips_sample_jpeg(int width, int height, double r, double g, double b, double noise,
                                           const char *text, void **out, size_t *out_len) {
    VipsImage *xy = NULL, *sum = NULL, *shade = NULL, *bg = NULL, *text_mask = NULL, *placed = NULL, *final = NULL, *cast = NULL;
    int rc = -1;
    // shade in [0.55, 1]: darker towards the bottom right.
    if (vips_xyz(&xy, width, height, NULL)) goto done;
    { VipsImage *bx = NULL, *by = NULL;
      if (vips_extract_band(xy, &bx, 0, NULL)) goto done;
      if (vips_extract_band(xy, &by, 1, NULL)) { g_object_unref(bx); goto done; }
      rc = vips_add(bx, by, &sum, NULL); g_object_unref(bx); g_object_unref(by);
      if (rc) { rc = -1; goto done; } rc = -1; }
    if (vips_linear1(sum, &shade, -0.45 / (double)(width + height), 1.0, NULL)) goto done;
    { double a[3] = { r, g, b }; double z[3] = { 0, 0, 0 };
      if (vips_linear(shade, &bg, a, z, 3, NULL)) goto done; }
    if (noise > 0) {
        VipsImage *grain = NULL, *noisy = NULL;
        if (vips_gaussnoise(&grain, width, height, "mean", 0.0, "sigma", noise, NULL)) goto done;
        rc = vips_add(bg, grain, &noisy, NULL);
        g_object_unref(grain);
        if (rc) { rc = -1; goto done; }
        rc = -1;
        g_object_unref(bg);
        bg = noisy;
    }
    // A machine without fonts (or without pango) still gets its pictures, untitled.
    if (text && text[0] && vips_text(&text_mask, text, "width", width * 8 / 10, "height", height / 3, "dpi", 600, "align", VIPS_ALIGN_CENTRE, NULL)) {
        vips_error_clear();
        text_mask = NULL;
    }
    if (text_mask) {
        int tw = vips_image_get_width(text_mask), th = vips_image_get_height(text_mask);
        if (vips_embed(text_mask, &placed, (width - tw) / 2, (height - th) / 2, width, height, NULL)) goto done;
        double white[3] = { 255, 255, 255 };
        VipsImage *whiteImage = NULL;
        if (vips_black(&whiteImage, width, height, "bands", 3, NULL)) goto done;
        VipsImage *whiteFilled = NULL;
        double one[3] = { 1, 1, 1 };
        rc = vips_linear(whiteImage, &whiteFilled, one, white, 3, NULL);
        g_object_unref(whiteImage);
        if (rc) { rc = -1; goto done; }
        rc = vips_ifthenelse(placed, whiteFilled, bg, &final, "blend", TRUE, NULL);
        g_object_unref(whiteFilled);
        if (rc) { rc = -1; goto done; }
    } else {
        final = bg; g_object_ref(bg);
    }
    if (vips_cast(final, &cast, VIPS_FORMAT_UCHAR, NULL)) goto done;
    rc = vips_jpegsave_buffer(cast, out, out_len, "Q", 85, NULL);
done:
    if (xy) g_object_unref(xy);
    if (sum) g_object_unref(sum);
    if (shade) g_object_unref(shade);
    if (bg) g_object_unref(bg);
    if (text_mask) g_object_unref(text_mask);
    if (placed) g_object_unref(placed);
    if (final) g_object_unref(final);
    if (cast) g_object_unref(cast);
    return rc;
}

/// A uniform grey image of width × height encoded as PNG (tests: large-dimension images that compress to little).
static inline int gallery_vips_plain_png(int width, int height, void **out, size_t *out_len) {
    VipsImage *black = NULL;
    if (vips_black(&black, width, height, NULL)) return -1;
    VipsImage *cast = NULL;
    int rc = vips_cast(black, &cast, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(black);
    if (rc) return -1;
    rc = vips_pngsave_buffer(cast, out, out_len, "compression", 9, NULL);
    g_object_unref(cast);
    return rc;
}

static inline void gallery_g_free(void *p) { g_free(p); }
