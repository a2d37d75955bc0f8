#include <vips/vips.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <fontconfig/fontconfig.h>

// Swift cannot call C variadic functions, and libvips passes options as NULL-terminated
// name/value lists. These non-variadic wrappers fix the options the gallery uses.

/// The grey (0-255) under transparent pixels in thumbnails.
#define GALLERY_BACKDROP 204

static inline int gallery_vips_init(void) {
    if (VIPS_INIT("gallery")) return -1;
    // Thumbnails are made once and cached on disk; libvips' operation cache would only hold memory.
    vips_cache_set_max(0);
    // Uploads are untrusted: only loaders libvips considers safe for them (JPEG, PNG, WebP, GIF,
    // TIFF, HEIF/AVIF, JPEG XL, SVG …), never ImageMagick's catch-all, PDF or the scientific formats.
    vips_block_untrusted_set(TRUE);
    // JPEG XL is one of the formats people bring; libvips 8.14 still marks its loader untrusted
    // (libjxl was young): allowed on its own, behind the same pixel limit as every upload.
    vips_operation_block_set("VipsForeignLoadJxl", FALSE);
    // No run-time generated SIMD code (liborc): a fresh clone's test run crashed inside liborc
    // (SIGSEGV on a thread thumbnailing, while other threads' broken images failed "error in tile"),
    // a kind of crash libvips users have long met under concurrency (libvips 8.14, orc 0.4.33 here).
    // The same as VIPS_NOVECTOR=1; libvips' own C paths do the work.
    vips_vector_set_enabled(FALSE);
    return 0;
}

static inline const char *gallery_vips_error(void) { return vips_error_buffer(); }
static inline void gallery_vips_error_clear(void) { vips_error_clear(); }

/// Name of the loader libvips would use for this buffer, or NULL when it is not an image format it knows.
static inline const char *gallery_vips_find_loader(const void *buf, size_t len) {
    return vips_foreign_find_load_buffer(buf, len);
}

// Whether the loader `nickname` (as gallery_vips_find_loader answers it) is blocked (an untrusted
// one: ImageMagick, PDF, …), read from its class's flags: libvips' error text is one buffer per
// process, so another thread's failure can stand in it when this one's is read.
static inline int gallery_vips_loader_blocked(const char *nickname) {
    GType type = vips_type_find("VipsOperation", nickname);
    if (!type) return 0;
    VipsOperationClass *class = VIPS_OPERATION_CLASS(g_type_class_ref(type));
    int blocked = (class->flags & VIPS_OPERATION_BLOCKED) != 0;
    g_type_class_unref(class);
    return blocked;
}

/// The EXIF orientation (1-8) of a loaded image; 1 when absent or not one of the eight values.
static inline int gallery_vips_orientation(VipsImage *image) {
    int orientation = 1;
    if (vips_image_get_typeof(image, VIPS_META_ORIENTATION) &&
        vips_image_get_int(image, VIPS_META_ORIENTATION, &orientation)) {
        vips_error_clear();
        orientation = 1;
    }
    return orientation >= 1 && orientation <= 8 ? orientation : 1;
}

/// Reads only the header of an image in memory: stored dimensions and EXIF orientation. Returns 0 on success.
static inline int gallery_vips_probe(const void *buf, size_t len, int *width, int *height, int *orientation) {
    VipsImage *image = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image) return -1;
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    *orientation = gallery_vips_orientation(image);
    g_object_unref(image);
    return 0;
}

/// The same from a file, reading its header only (a re-probe of stored originals).
static inline int gallery_vips_probe_file(const char *path, int *width, int *height, int *orientation) {
    VipsImage *image = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image) return -1;
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    *orientation = gallery_vips_orientation(image);
    g_object_unref(image);
    return 0;
}

/// Decodes an image to 8-bit sRGB pixels, 3 bytes a pixel, row by row (the caller frees *out with g_free).
static inline int gallery_vips_decode_rgb(const void *buf, size_t len, void **out, size_t *out_len, int *width, int *height) {
    VipsImage *image = vips_image_new_from_buffer(buf, len, "", NULL);
    if (!image) return -1;
    VipsImage *srgb = NULL, *cast = NULL, *rgb = NULL;
    int rc = vips_colourspace(image, &srgb, VIPS_INTERPRETATION_sRGB, NULL)
          || vips_cast(srgb, &cast, VIPS_FORMAT_UCHAR, NULL)
          || vips_extract_band(cast, &rgb, 0, "n", 3, NULL);
    if (!rc) {
        *out = vips_image_write_to_memory(rgb, out_len);
        *width = vips_image_get_width(rgb);
        *height = vips_image_get_height(rgb);
        rc = *out ? 0 : -1;
    } else {
        rc = -1;
    }
    g_object_unref(image);
    if (srgb) g_object_unref(srgb);
    if (cast) g_object_unref(cast);
    if (rgb) g_object_unref(rgb);
    return rc;
}

/// Worker threads libvips gives one image's pipeline (its default: one per core).
static inline void gallery_vips_set_concurrency(int n) { vips_concurrency_set(n); }

/// Thumbnail fitting width × height (never enlarged), auto-rotated, saved as JPEG. The caller frees *out with g_free.
/// Truncated or corrupt input fails instead of being padded with grey.
static inline int gallery_vips_thumbnail_jpeg(const void *buf, size_t len, int width, int height, int quality,
                                              void **out, size_t *out_len) {
    VipsImage *thumb = NULL;
    const char *loader = vips_foreign_find_load_buffer(buf, len);
    char spill[] = "/tmp/gallery-jxl-XXXXXX";
    int spilled = 0;
    if (loader && strstr(loader, "Jxl")) {
        // libvips 8.14's JPEG XL loader cannot seek back in a memory source ("bad seek"): it reads
        // from a temporary file instead (removed below, once the thumbnail is written).
        int fd = mkstemp(spill);
        if (fd < 0) { vips_error("gallery", "no temporary file for a JPEG XL image"); return -1; }
        spilled = 1;
        size_t done = 0;
        while (done < len) {
            ssize_t n = write(fd, (const char *)buf + done, len - done);
            if (n <= 0) break;
            done += (size_t)n;
        }
        close(fd);
        char name[64];
        snprintf(name, sizeof name, "%s[fail_on=truncated]", spill);
        if (done < len || vips_thumbnail(name, &thumb, width, "height", height, "size", VIPS_SIZE_DOWN, NULL)) { unlink(spill); return -1; }
    } else if (vips_thumbnail_buffer((void *)buf, len, &thumb, width, "height", height, "size", VIPS_SIZE_DOWN,
                                     "option_string", "fail_on=truncated", NULL)) return -1;
    // Flatten alpha onto a neutral light grey: JPEG has no alpha, and a transparent logo must
    // stay visible whether its ink is white or black, on the light page and the dark one.
    VipsImage *flat = NULL;
    if (vips_image_hasalpha(thumb)) {
        VipsArrayDouble *grey = vips_array_double_newv(1, (double)GALLERY_BACKDROP);
        int rc = vips_flatten(thumb, &flat, "background", grey, NULL);
        vips_area_unref(VIPS_AREA(grey));
        g_object_unref(thumb);
        if (rc) { if (spilled) unlink(spill); return -1; }
    } else {
        flat = thumb;
    }
    int rc = vips_jpegsave_buffer(flat, out, out_len, "Q", quality, "strip", TRUE, NULL);
    g_object_unref(flat);
    if (spilled) unlink(spill);
    return rc;
}

/// `markup` (Pango markup) rendered in colour (`rgba`: colour emoji keep their colours, other
/// text takes the markup's foreground) to fit box_w × box_h, centred. Colour emoji fonts are
/// bitmaps that do not grow with the dpi, so a rendering much smaller than the box is scaled up
/// to fit it. Returns 0 with *out set, 1 when nothing visible was drawn, -1 on a libvips error.
static inline int gallery_vips_text_rgba(const char *markup, int box_w, int box_h, VipsImage **out) {
    VipsImage *t = NULL, *alpha = NULL;
    *out = NULL;
    if (vips_text(&t, markup, "width", box_w, "height", box_h, "dpi", 600, "align", VIPS_ALIGN_CENTRE, "rgba", TRUE, NULL)) return -1;
    double amax = 0;
    if (vips_image_get_bands(t) != 4 || vips_extract_band(t, &alpha, 3, NULL) || vips_max(alpha, &amax, NULL)) {
        if (alpha) g_object_unref(alpha);
        g_object_unref(t);
        return -1;
    }
    g_object_unref(alpha);
    if (amax <= 0) { g_object_unref(t); return 1; }
    int tw = vips_image_get_width(t), th = vips_image_get_height(t);
    double sx = (double)box_w / tw, sy = (double)box_h / th, scale = sx < sy ? sx : sy;
    if (scale > 1.25) {
        // Premultiplied while scaling, so transparent pixels do not bleed dark fringes into the edges.
        VipsImage *pre = NULL, *big = NULL, *un = NULL, *cast = NULL;
        int rc = vips_premultiply(t, &pre, NULL)
              || vips_resize(pre, &big, scale, NULL)
              || vips_unpremultiply(big, &un, NULL)
              || vips_cast(un, &cast, VIPS_FORMAT_UCHAR, NULL);
        if (pre) g_object_unref(pre);
        if (big) g_object_unref(big);
        if (un) g_object_unref(un);
        g_object_unref(t);
        if (rc) { if (cast) g_object_unref(cast); return -1; }
        t = cast;
    }
    *out = t;
    return 0;
}

/// A sample picture: a diagonal colour gradient with `markup` drawn over it (Pango markup, in
/// colour), encoded as JPEG. When `markup` draws nothing visible or cannot be rendered,
/// `fallback_markup` (if any) is drawn instead, so a title never leaves its picture blank.
/// `noise` > 0 adds Gaussian grain of that sigma, so the JPEG costs what a photograph costs to decode.
static inline int gallery_vips_sample_jpeg(int width, int height, double r, double g, double b, double noise,
                                           const char *markup, const char *fallback_markup, void **out, size_t *out_len) {
    VipsImage *xy = NULL, *sum = NULL, *shade = NULL, *bg = NULL, *text = NULL, *composed = NULL, *final = NULL, *cast = NULL;
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
    { int box_w = width * 8 / 10, box_h = height / 3;
      int drawn = markup && markup[0] ? gallery_vips_text_rgba(markup, box_w, box_h, &text) : 1;
      if (drawn != 0 && fallback_markup && fallback_markup[0]) {
          vips_error_clear();
          drawn = gallery_vips_text_rgba(fallback_markup, box_w, box_h, &text);
      }
      if (drawn != 0) { vips_error_clear(); text = NULL; } }
    if (text) {
        int tw = vips_image_get_width(text), th = vips_image_get_height(text);
        VipsImage *base = NULL;
        if (vips_cast(bg, &base, VIPS_FORMAT_UCHAR, NULL)) goto done;
        rc = vips_composite2(base, text, &composed, VIPS_BLEND_MODE_OVER, "x", (width - tw) / 2, "y", (height - th) / 2, NULL);
        g_object_unref(base);
        if (rc) { rc = -1; goto done; }
        rc = -1;
        if (vips_extract_band(composed, &final, 0, "n", 3, NULL)) goto done;
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
    if (text) g_object_unref(text);
    if (composed) g_object_unref(composed);
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

/// 1 when, for every character of `utf8`, some installed font has a glyph (fontconfig's view,
/// the fonts Pango draws with); 0 when a character would be drawn as a "missing glyph" box.
/// Spaces, joiners and variation selectors need no glyph of their own.
static inline int gallery_fonts_cover(const char *utf8) {
    if (!FcInit()) return 0;
    const FcChar8 *p = (const FcChar8 *)utf8;
    int left = (int)strlen(utf8);
    while (left > 0) {
        FcChar32 c = 0;
        int n = FcUtf8ToUcs4(p, &c, left);
        if (n <= 0) return 0;
        p += n; left -= n;
        if (c <= 0x20 || c == 0x200D || c == 0xFE0E || c == 0xFE0F) continue;
        FcCharSet *set = FcCharSetCreate();
        FcCharSetAddChar(set, c);
        FcPattern *pattern = FcPatternCreate();
        FcPatternAddCharSet(pattern, FC_CHARSET, set);
        FcObjectSet *fields = FcObjectSetBuild(FC_FAMILY, (char *)0);
        FcFontSet *fonts = FcFontList(NULL, pattern, fields);
        int found = fonts && fonts->nfont > 0;
        if (fonts) FcFontSetDestroy(fonts);
        FcObjectSetDestroy(fields);
        FcPatternDestroy(pattern);
        FcCharSetDestroy(set);
        if (!found) return 0;
    }
    return 1;
}

static inline void gallery_g_free(void *p) { g_free(p); }

/// Test fixtures: an image in memory re-saved in the format of `suffix` (".webp", ".gif", ".tif",
/// ".png", ".heic", ".avif", ".jxl"), optionally with a transparent left half first. The caller frees *out with g_free.
static inline int gallery_vips_convert(const void *buf, size_t len, const char *suffix, int transparent_left,
                                       void **out, size_t *out_len) {
    VipsImage *image = vips_image_new_from_buffer(buf, len, "", NULL);
    if (!image) return -1;
    VipsImage *source = image;
    VipsImage *alpha = NULL, *withAlpha = NULL, *x = NULL, *mask = NULL;
    int rc = -1;
    if (transparent_left) {
        // alpha = 255 where x >= width / 2, else 0
        if (vips_xyz(&x, vips_image_get_width(image), vips_image_get_height(image), NULL)) goto done;
        VipsImage *xb = NULL;
        if (vips_extract_band(x, &xb, 0, NULL)) goto done;
        rc = vips_moreeq_const1(xb, &mask, vips_image_get_width(image) / 2, NULL);
        g_object_unref(xb);
        if (rc) { rc = -1; goto done; }
        rc = -1;
        if (vips_cast(mask, &alpha, VIPS_FORMAT_UCHAR, NULL)) goto done;
        if (vips_bandjoin2(image, alpha, &withAlpha, NULL)) goto done;
        source = withAlpha;
    }
    rc = vips_image_write_to_buffer(source, suffix, out, out_len, NULL);
done:
    g_object_unref(image);
    if (x) g_object_unref(x);
    if (mask) g_object_unref(mask);
    if (alpha) g_object_unref(alpha);
    if (withAlpha) g_object_unref(withAlpha);
    return rc;
}

/// Test fixture: a two-frame animated GIF, the first frame red, the second blue.
static inline int gallery_vips_two_frame_gif(int width, int height, void **out, size_t *out_len) {
    VipsImage *black = NULL, *red = NULL, *blue = NULL, *joined = NULL, *cast = NULL;
    VipsImage *frames[2];
    int rc = -1;
    double r[3] = { 220, 30, 30 }, b[3] = { 30, 30, 220 }, zero[3] = { 0, 0, 0 }, one[3] = { 1, 1, 1 };
    (void)zero;
    if (vips_black(&black, width, height, "bands", 3, NULL)) goto done;
    if (vips_linear(black, &red, one, r, 3, NULL)) goto done;
    if (vips_linear(black, &blue, one, b, 3, NULL)) goto done;
    frames[0] = red; frames[1] = blue;
    if (vips_arrayjoin(frames, &joined, 2, "across", 1, NULL)) goto done;
    if (vips_cast(joined, &cast, VIPS_FORMAT_UCHAR, NULL)) goto done;
    vips_image_set_int(cast, "page-height", height);
    rc = vips_image_write_to_buffer(cast, ".gif", out, out_len, NULL);
done:
    if (black) g_object_unref(black);
    if (red) g_object_unref(red);
    if (blue) g_object_unref(blue);
    if (joined) g_object_unref(joined);
    if (cast) g_object_unref(cast);
    return rc;
}

/// The EXIF fields the detail view shows, as "name\tvalue\n" lines (libvips' text form of each:
/// "1/125 (1/125 sec., Rational, …)"). The caller frees *out with g_free. Returns 0 on success.
static inline int gallery_vips_exif(const void *buf, size_t len, char **out) {
    static const char *names[] = {
        "exif-ifd2-DateTimeOriginal", "exif-ifd2-OffsetTimeOriginal", "exif-ifd0-DateTime",
        "exif-ifd0-Make", "exif-ifd0-Model", "exif-ifd2-LensModel",
        "exif-ifd2-ExposureTime", "exif-ifd2-FNumber", "exif-ifd2-ISOSpeedRatings", "exif-ifd2-FocalLength",
        "exif-ifd3-GPSLatitude", "exif-ifd3-GPSLatitudeRef", "exif-ifd3-GPSLongitude", "exif-ifd3-GPSLongitudeRef",
    };
    VipsImage *image = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image) return -1;
    GString *text = g_string_new(NULL);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *value = NULL;
        if (vips_image_get_typeof(image, names[i]) && !vips_image_get_as_string(image, names[i], &value) && value) {
            for (char *c = value; *c; c++) if (*c == '\n' || *c == '\t') *c = ' ';
            g_string_append_printf(text, "%s\t%s\n", names[i], value);
        }
        g_free(value);
    }
    g_object_unref(image);
    *out = g_string_free(text, FALSE);
    return 0;
}
